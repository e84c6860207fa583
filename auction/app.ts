import express from 'express';
import type { ClickHouseClient } from '@clickhouse/client';
import type { Db } from '../lib/db';
import { BidCache } from './bid-cache';
import { Catalog } from './catalog';
import { DspHealth } from './dsp/health';
import { errorHandler, sendError } from './http-errors';
import { alwaysOpenBudget, priorCtr, type BudgetGate, type CtrEstimator } from './inhouse/eligibility';
import { AuctionLog } from './log/writer';
import { createAuctionMetrics } from './metrics';
import { auctionOpenApi } from './openapi';
import { runAuction, type PipelineDeps } from './pipeline';
import { auctionSettings, type AuctionSettings } from './settings';
import { authenticatePublisher, intake } from './stages/1-intake';
import { DomainError } from '../domain/errors';
import type { DspConfig } from '../domain/dsps';

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
  /** CPM floor in micros for every auction (default AUCTION_FLOOR_MICROS, 0). */
  floorMicros?: number;
  databaseUrl?: string;
  /** Which enabled DSPs this instance calls (default all); tests and the bench narrow it to their own. */
  dspFilter?: (dsp: DspConfig) => boolean;
}

export interface Auction {
  app: express.Express;
  deps: PipelineDeps;
  start(): Promise<void>;
  close(): Promise<void>;
}

export function createAuction(input: AuctionDeps): Auction {
  const settings: AuctionSettings = { ...auctionSettings, ...input.settings };
  const catalog = new Catalog(input.db, { databaseUrl: input.databaseUrl, safetyReloadMs: settings.indexSafetyReloadMs, dspFilter: input.dspFilter });
  const deps: PipelineDeps = {
    catalog,
    health: new DspHealth({ afterFailures: settings.backoffAfterFailures, baseMs: settings.backoffBaseMs, maxMs: settings.backoffMaxMs }),
    cache: new BidCache(settings.bidCacheTtlMs),
    log: new AuctionLog(input.clickhouse, { batchSize: settings.logBatchSize, flushMs: settings.logFlushMs }),
    metrics: createAuctionMetrics({ size: () => catalog.ads.length, loadedAt: () => catalog.adsLoadedAt }),
    settings,
    inhouse: { budget: input.budget ?? alwaysOpenBudget, ctr: input.ctr ?? priorCtr },
  };
  const floorMicros = input.floorMicros ?? Number(process.env.AUCTION_FLOOR_MICROS ?? 0);

  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.get('/healthz', (_req, res) => { res.json({ ok: true, index_ads: catalog.ads.length }); });
  app.get('/metrics', async (_req, res) => {
    res.set('content-type', deps.metrics.registry.contentType);
    res.send(await deps.metrics.registry.metrics());
  });
  app.get('/v1/openapi.json', (_req, res) => { res.json(auctionOpenApi()); });
  app.post('/v1/ad_requests',
    // Authenticate before reading the body: an unknown caller costs no parsing.
    (req, _res, next) => { res_locals(req).publisher = authenticatePublisher(req.get('authorization'), catalog.publishers); next(); },
    express.json({ limit: '256kb', strict: false }),
    async (req, res) => {
      const ctx = intake(req, res_locals(req).publisher!, floorMicros);
      res.json(await runAuction(ctx, deps));
    });
  app.use((_req, res) => sendError(res, new DomainError('not_found', 'Unrecognized request URL')));
  app.use(errorHandler);

  return {
    app,
    deps,
    start: () => catalog.start(),
    async close() {
      await catalog.close();
      deps.cache.close();
      await deps.log.drain();
    },
  };
}

type Locals = { publisher?: ReturnType<typeof authenticatePublisher> };
const res_locals = (req: express.Request): Locals => ((req as unknown as { auctionLocals?: Locals }).auctionLocals ??= {});
