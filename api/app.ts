import express, { Router } from 'express';
import { createHttpMetrics, type HttpMetrics } from '../lib/http-metrics';
import { registerDeadLetterGauge } from '../domain/dead-letters/metrics';
import { createLedgerMetrics, createTrackingTokenMetrics, type LedgerObserver, type TokenObserver } from '../domain/delivery/metrics';
import type { Client } from '@temporalio/client';
import { config } from '../lib/config';
import { createAssetStore, type AssetStore } from '../lib/asset-store';
import { createPgPool, type Db } from '../lib/db';
import type { CreativeReviewQueue } from '../domain/creatives/review';
import { createCreativeGenerator, type CreativeGenerator } from '../domain/creatives/generator';
import { adAccountOperations } from './ad-account/routes';
import { auditOperations } from './audit/routes';
import { webhookOperations } from './webhooks/routes';
import { reportDownloadOperation, reportDownloadRoutes, reportExportOperations } from './insights/exports';
import { adGroupOperations } from './ad-groups/routes';
import { adOperations } from './ads/routes';
import { apiKeyOperations, apiKeyRoutes } from './api-keys/routes';
import { apiKeyAuth } from './auth/api-key-auth';
import { campaignOperations } from './campaigns/routes';
import { campaignDeliveryOperation } from './campaigns/delivery';
import { campaignCreateOperation } from './campaigns/create';
import { jsonBody } from '../lib/http/body';
import { envelopeErrorHandler } from './http/envelope';
import { errorHandler, unknownRoute } from '../lib/http/errors';
import { buildOpenApiDocument } from '../lib/http/openapi';
import { mountOperations, onlyOnPaths } from '../lib/http/operations';
import { requestId } from '../lib/http/request-id';
import { insightsOperations } from './insights/routes';
import { rateLimit } from './rate-limit/rate-limiter';
import { assetRoutes, uploadOperation } from './uploads/routes';
import { pollOperations, pollRoutes } from './tracking/polls';
import { collectOperation, collectRoutes } from './events/collect';
import { deliveryTrackingOperations, deliveryTrackingRoutes } from './tracking/delivery';
import { trackingCors } from './tracking/cors';
import { createDeliveryLedger, type DeliveryLedgerWriter } from '../domain/delivery/ledger';
import { startDeliveryLedger, type DeliveryLedgerProcess } from './tracking/delivery-ledger';
import { campaignSearchOf } from '../domain/campaigns/search';
import { temporalCreativeReviews } from '../workflows/clients/creative-review';
import type { EagerStart } from '../workflows/clients/campaign-creation';
import { budgetExhaustionSignaller } from '../workflows/clients/campaign-lifecycle';
import { dashboardRoutes } from './dashboard/routes';
import { dashboardApiRoutes, dashboardOperations } from './dashboard/operations';
import { labelRoute } from '../lib/http-metrics';
import { createClickhouse } from '../lib/clickhouse/client';
import { DASHBOARD_PREFIX } from './dashboard/session-cookie';

export interface AppDeps {
  db: Db;
  temporal: Client;
  assets: AssetStore;
  creatives: CreativeGenerator;
  /** Where changed creatives of approved campaigns go for review (the per-ad review workflow). */
  creativeReviews?: CreativeReviewQueue;
  /** The delivery ledger the trackers write through (api/tracking/delivery-ledger.ts starts it); default: a ledger of its own. */
  deliveryLedger?: DeliveryLedgerWriter;
  /** The api process's campaign-creation worker (api/server.ts), which creates start eagerly on; default: none. */
  eagerStart?: EagerStart;
  /** The process's metrics, served on its internal metrics port (api/server.ts); default: a registry of its own. */
  metrics?: ApiMetrics;
}

/**
 * What the api process runs on over `db` and `temporal` (api/server.ts; test/support/harness.ts runs the
 * same in process): its metrics, and the delivery ledger it starts (closed on shutdown).
 */
export function apiProcessDeps(
  db: Db,
  temporal: Client,
  options: { onBudgetExhausted?: (campaignIds: string[]) => void } = {},
): { deps: AppDeps; metrics: ApiMetrics; delivery: DeliveryLedgerProcess } {
  const metrics = createApiMetrics(db);
  // The trackers' ledger; its rows reach ClickHouse through the worker (api/tracking/delivery-ledger.ts).
  const delivery = startDeliveryLedger({
    pool: createPgPool(undefined, 4),
    onBudgetExhausted: options.onBudgetExhausted ?? budgetExhaustionSignaller(temporal),
    observer: metrics.delivery,
  });
  const deps: AppDeps = {
    db,
    temporal,
    assets: createAssetStore(),
    creatives: createCreativeGenerator(),
    // Changed creatives of approved campaigns go to the per-ad review workflow.
    creativeReviews: temporalCreativeReviews(temporal, (campaignId) => campaignSearchOf(db, campaignId)),
    deliveryLedger: delivery.ledger,
    metrics,
  };
  return { deps, metrics, delivery };
}

/**
 * The api's metrics: HTTP durations, process defaults, the pipelines' dead letters, and
 * delivery (`delivery`: hand it to the process's ledger, api/tracking/delivery-ledger.ts).
 */
export type ApiMetrics = HttpMetrics & { delivery: LedgerObserver; tokens: TokenObserver };

export function createApiMetrics(db: Db): ApiMetrics {
  const metrics = createHttpMetrics('api');
  registerDeadLetterGauge(metrics.registry, 'api', db);
  return { ...metrics, delivery: createLedgerMetrics(metrics.registry, 'api'), tokens: createTrackingTokenMetrics(metrics.registry, 'api') };
}

/**
 * The api process: `/v1` (API keys), `/api/organizations/...` (dashboard
 * sessions), health and the OpenAPI document. One port serves every host of the
 * spec in dev; paths tell them apart.
 */
export function createApp(deps: AppDeps) {
  const { db } = deps;
  const app = express();
  const metrics = deps.metrics ?? createApiMetrics(db);
  // One ClickHouse client for every report the api answers (/v1 insights, the dashboard's).
  const analytics = createClickhouse(undefined, { compressResponses: false });
  const ledger = deps.deliveryLedger ?? createDeliveryLedger(createPgPool());
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestId);
  app.use(metrics.middleware);
  app.get('/healthz', labelRoute('/healthz'), (_req, res) => {
    res.json({ ok: true });
  });
  // Every `/v1` operation, declared once: mounted below and documented from the same list.
  const v1Operations = [
    ...adAccountOperations(db),
    campaignCreateOperation(deps),
    ...campaignOperations(db, deps.temporal),
    campaignDeliveryOperation(db, analytics),
    ...adGroupOperations(deps),
    ...adOperations(deps),
    uploadOperation(db, deps.assets),
    ...insightsOperations(db, analytics),
    ...auditOperations(db),
    ...webhookOperations(db),
    ...reportExportOperations(db),
  ];
  // {tracking_url}: the signed token is the auth; {events_url}: the organization's ak_ key.
  const deliveryOperations = deliveryTrackingOperations(ledger, metrics.tokens);
  const trackingOperations = pollOperations(db);
  const collectOperations = [collectOperation(db)];
  const reportDownload = reportDownloadOperation(db);
  const dashboardJson = dashboardOperations({ db, temporal: deps.temporal, assets: deps.assets }, analytics);
  // The contract itself is public: it holds no organization's data.
  const openApi = buildOpenApiDocument(
    [
      ...v1Operations,
      ...apiKeyOperations(db, deps.temporal),
      ...deliveryOperations,
      ...trackingOperations,
      ...collectOperations,
      reportDownload,
      ...dashboardJson,
    ],
    { title: 'Chat ads platform API', version: '1.0.0' },
  );
  app.get('/v1/openapi.json', labelRoute('/v1/openapi.json'), (_req, res) => {
    res.json(openApi);
  });

  // The busiest requests (the trackers, event collection) first: they walk no other surface's routers.
  app.use(trackingCors);
  app.use(onlyOnPaths(deliveryOperations, deliveryTrackingRoutes(deliveryOperations)));
  app.use(onlyOnPaths(collectOperations, collectRoutes(collectOperations)));
  app.use(pollRoutes(trackingOperations));

  app.use(apiKeyRoutes(db, deps.temporal));

  const v1 = Router();
  v1.use(apiKeyAuth(db));
  v1.use(rateLimit(db, 'all', () => config.rateLimits.perKeyPerHour));
  v1.use(mountOperations(v1Operations));
  // Unknown routes: a body that is not JSON is still 415 before the 404.
  v1.use(jsonBody);
  v1.use(unknownRoute);
  // Mounted without stripping the prefix, so routes declare (and document) their full paths.
  app.use((req, res, next) => (req.path === '/v1' || req.path.startsWith('/v1/') ? v1(req, res, next) : next()));
  app.use(assetRoutes(deps.assets));
  app.use(reportDownloadRoutes(reportDownload));
  // {platform_url}'s dashboard: pages and its own JSON under the session cookie (README, Dashboard).
  app.use(dashboardApiRoutes(db, dashboardJson));
  app.use(DASHBOARD_PREFIX, dashboardRoutes(db));
  // Unknown paths of the platform surface answer in its envelope (mount `/api` routes above).
  app.use('/api', unknownRoute, envelopeErrorHandler);
  // Anything else, on any host, answers with the error object rather than an HTML page.
  app.use(unknownRoute);
  app.use(errorHandler);
  return app;
}
