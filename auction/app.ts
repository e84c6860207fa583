import type { IncomingMessage } from 'node:http';
import express from 'express';
import type { ClickHouseClient } from '@clickhouse/client';
import type { Db } from '../lib/db';
import { BidCache } from './bid-cache';
import { Catalog } from './catalog';
import { DspHealth } from './dsp/health';
import { errorHandler, unknownRoute } from '../lib/http/errors';
import { mountOperations } from '../lib/http/operations';
import { alwaysOpenBudget, priorCtr, type BudgetGate, type CtrEstimator } from './inhouse/eligibility';
import { AuctionLog, nowDateTime } from './log/writer';
import { loadRelevanceIndex } from './inhouse/relevance';
import { loadSignals } from './signals';
import { InhouseTallies } from './inhouse/tally';
import { FrequencyCaps } from './inhouse/frequency-caps';
import { PacingGate } from './inhouse/pacing-gate';
import { createPgPool } from '../lib/db';
import { createAuctionMetrics } from './metrics';
import { auctionBidders } from './bidders';
import { recordDeadLetters } from '../domain/dead-letters/store';
import { adRequestOperation, auctionOpenApi } from './openapi';
import { runAuction, type PipelineDeps } from './pipeline';
import { auctionSettings, type AuctionSettings } from './settings';
import { authenticatePublisher, intake } from './stages/1-intake';
import type { DspConfig } from '../domain/dsps';
import type { PublisherRecord } from '../domain/publishers';
import { config } from '../lib/config';
import { createClickhouse } from '../lib/clickhouse/client';
import { reportsOperation } from './reports/operation';
import { userErasureOperations } from './publisher/user-erasures';
import { PublisherRateLimit } from './publisher/rate-limit';

/**
 * The auction service as an Express app over injected dependencies, so tests
 * and the bench start it in-process. `createAuction()` builds the in-memory
 * catalog (LISTEN/NOTIFY), the DSP health tracker, the render bid cache, the
 * batched ClickHouse log and the metrics; `close()` drains the log.
 */
export interface AuctionDeps {
  db: Db;
  clickhouse: ClickHouseClient;
  settings?: Partial<AuctionSettings>;
  budget?: BudgetGate;
  ctr?: CtrEstimator;
  databaseUrl?: string;
  /** Which enabled DSPs this instance calls (default all); tests and the bench narrow it to their own. */
  dspFilter?: (dsp: DspConfig) => boolean;
  /** Test-only: the publisher rate limit's clock (auction/publisher/rate-limit.ts). */
  rateLimitClock?: () => number;
}

export interface Auction {
  app: express.Express;
  deps: PipelineDeps;
  /** Each publisher key's ad request rate limit, shared by the copies. */
  rateLimit: PublisherRateLimit;
  start(): Promise<void>;
  /** Writes the in-house bidder's tallies now (they go every inhouseStatsFlushMs anyway). */
  flushInhouseStats(): Promise<void>;
  close(): Promise<void>;
}

export function createAuction(input: AuctionDeps): Auction {
  const settings: AuctionSettings = { ...auctionSettings, ...input.settings };
  const controls = deliveryControls(input, settings);
  const { caps, pacing } = controls;
  // Each freshly loaded index entry takes over its ad's tally and its campaign's pacing plan.
  const tallies = new InhouseTallies();
  const catalog = new Catalog(input.db, {
    databaseUrl: input.databaseUrl,
    safetyReloadMs: settings.indexSafetyReloadMs,
    dspFilter: input.dspFilter,
    onAdsLoaded: async (ads) => {
      // Built here, with the index, not on the first request after a reload, in slices so that requests keep being served meanwhile.
      await loadRelevanceIndex(ads);
      tallies.adopt(ads);
      pacing.adopt(ads);
    },
  });
  const inhouse = { budget: input.budget ?? alwaysOpenBudget, ctr: input.ctr ?? priorCtr, pacing, caps };
  const deps: PipelineDeps = {
    catalog,
    bidders: auctionBidders(
      () => catalog.dsps,
      () => catalog.ads,
      inhouse,
      settings,
    ),
    health: new DspHealth({ afterFailures: settings.backoffAfterFailures, baseMs: settings.backoffBaseMs, maxMs: settings.backoffMaxMs }),
    cache: new BidCache(settings.bidCacheTtlMs),
    log: new AuctionLog(input.clickhouse, {
      batchSize: settings.logBatchSize,
      flushMs: settings.logFlushMs,
      setAside: (letters) => recordDeadLetters(input.db, letters),
    }),
    metrics: createAuctionMetrics(
      { size: () => catalog.ads.length, loadedAt: () => catalog.adsLoadedAt },
      { pacedCampaigns: () => pacing.heldBack, pacingPlanReadAt: () => pacing.planReadAt, frequencyKeys: () => caps.size },
    ),
    settings,
    inhouse,
  };

  const rateLimit = new PublisherRateLimit(input.db, {
    perSecond: settings.publisherRateLimitPerSecond,
    windowMs: settings.rateLimitWindowMs,
    syncMs: settings.rateLimitSyncMs,
    clock: input.rateLimitClock,
    onLimited: (publisher) => deps.metrics.rateLimited.inc({ publisher: publisher.publicId }),
  });

  // The in-house bidder's tallies go to ClickHouse with the log, every few seconds (the delivery diagnostics read them).
  const flushTallies = () => {
    const rows = tallies.take(nowDateTime());
    for (const row of rows) deps.metrics.inhouseOutcomes.inc({ outcome: row.outcome }, row.requests);
    deps.log.recordInhouseStats(rows);
  };
  const tallyTimer = setInterval(flushTallies, settings.inhouseStatsFlushMs);
  tallyTimer.unref();
  // Publisher reports read through a client of their own: a slow report never holds the log writer's connections.
  const reportsClickhouse = createClickhouse();

  return {
    app: auctionApp(deps, rateLimit, { db: input.db, ch: reportsClickhouse, database: config.clickhouse.database }),
    deps,
    rateLimit,
    start: async () => {
      await Promise.all([catalog.start(), controls.start(), loadSignals()]);
      rateLimit.start();
    },
    flushInhouseStats: () => {
      flushTallies();
      return deps.log.flush();
    },
    async close() {
      await catalog.close();
      deps.cache.close();
      clearInterval(tallyTimer);
      flushTallies();
      await controls.close();
      await rateLimit.close();
      await deps.log.drain();
      await reportsClickhouse.close();
    },
  };
}

/** Delivery controls shared by every auction process: the pacing plan and the frequency counts. */
function deliveryControls(input: AuctionDeps, settings: AuctionSettings) {
  const capsPool = createPgPool(input.databaseUrl, 2);
  const caps = new FrequencyCaps(capsPool, {
    perUserDay: settings.frequencyCapPerUserDay,
    perConversation: settings.frequencyCapPerConversation,
    provisionalMs: settings.frequencyProvisionalMs,
    syncMs: settings.frequencySyncMs,
  });
  const pacing = new PacingGate(input.db, settings.pacingRefreshMs);
  return {
    caps,
    pacing,
    start: async () => {
      await Promise.all([pacing.start(), caps.start()]);
    },
    async close() {
      pacing.close();
      await caps.close();
      await capsPool.end();
    },
  };
}

/** The service's HTTP surface over the pipeline: the ad request, the publisher's report, health, the OpenAPI document. */
function auctionApp(deps: PipelineDeps, rateLimit: PublisherRateLimit, stores: { db: Db; ch: ClickHouseClient; database: string }): express.Express {
  const { catalog, settings } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  const authenticate = (req: IncomingMessage) => authenticatePublisher(req.headers.authorization, catalog.publishers);
  // An ad request: its key, then its publisher's rate limit, both before the body is read.
  const admit = (req: IncomingMessage) => {
    const publisher = authenticate(req);
    rateLimit.admit(publisher);
    return publisher;
  };
  const adRequest = adRequestOperation(async ({ body }, req) => runAuction(intake(req, body, publisherOf(req), settings.floorMicros), deps));
  const reports = reportsOperation({ authenticate, report: stores });
  const erasures = userErasureOperations({ authenticate, db: stores.db });
  app.get('/healthz', (_req, res) => {
    res.json({ ok: true, index_ads: catalog.ads.length });
  });
  let openApi: object | undefined;
  app.get('/v1/openapi.json', (_req, res) => {
    res.json((openApi ??= auctionOpenApi([adRequest, reports, ...erasures])));
  });
  // The publisher key is checked before the body is read: an unknown caller costs no parsing.
  app.use('/v1/ad_requests', (req, _res, next) => {
    (req as AuthedRequest).publisher = admit(req);
    next();
  });
  app.use(mountOperations([adRequest, reports, ...erasures]));
  app.use(unknownRoute);
  app.use(errorHandler);
  return app;
}

type AuthedRequest = express.Request & { publisher?: PublisherRecord };
const publisherOf = (req: express.Request) => (req as AuthedRequest).publisher!;
