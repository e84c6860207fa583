import express, { Router } from 'express';
import type { Client } from '@temporalio/client';
import { config } from '../lib/config';
import type { AssetStore } from '../lib/asset-store';
import type { Db } from '../lib/db';
import type { CreativeGenerator } from '../domain/creatives/generator';
import { adAccountRoutes } from './ad-account/routes';
import { adGroupRoutes } from './ad-groups/routes';
import { adRoutes } from './ads/routes';
import { apiKeyRoutes } from './api-keys/routes';
import { apiKeyAuth } from './auth/api-key-auth';
import { campaignRoutes } from './campaigns/routes';
import { campaignCreateRoutes } from './campaigns/create';
import { jsonBody } from '../lib/http/body';
import { envelopeErrorHandler } from './http/envelope';
import { errorHandler, unknownRoute } from '../lib/http/errors';
import { buildOpenApiDocument } from '../lib/http/openapi';
import { requestId } from '../lib/http/request-id';
import { rateLimit } from './rate-limit/rate-limiter';
import { assetRoutes, uploadRoutes } from './uploads/routes';

export interface AppDeps {
  db: Db;
  temporal: Client;
  assets: AssetStore;
  creatives: CreativeGenerator;
}

/**
 * The api process: `/v1` (API keys), `/api/organizations/...` (dashboard
 * sessions), health and the OpenAPI document. One port serves every host of the
 * spec in dev; paths tell them apart.
 */
export function createApp(deps: AppDeps) {
  const { db } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestId);

  app.get('/healthz', (_req, res) => { res.json({ ok: true }); });
  // The contract itself is public: it holds no organization's data. Built once,
  // on first request, when every route module has documented itself.
  let openApi: object | undefined;
  app.get('/v1/openapi.json', (_req, res) => { res.json((openApi ??= buildOpenApiDocument())); });

  app.use(apiKeyRoutes(db, deps.temporal));

  const v1 = Router();
  v1.use(apiKeyAuth(db));
  v1.use(rateLimit(db, 'all', () => config.rateLimits.perKeyPerHour));
  v1.use(uploadRoutes(db, deps.assets)); // before the JSON parser: it also takes multipart
  v1.use(jsonBody);
  v1.use(adAccountRoutes(db));
  v1.use(campaignRoutes(db));
  v1.use(adGroupRoutes(deps));
  v1.use(adRoutes(deps));
  v1.use(campaignCreateRoutes(db, deps.temporal));
  v1.use(unknownRoute);
  // Mounted without stripping the prefix, so routes declare (and document) their full paths.
  app.use((req, res, next) => (req.path === '/v1' || req.path.startsWith('/v1/') ? v1(req, res, next) : next()));
  app.use(assetRoutes(deps.assets));
  // Unknown paths of the platform surface answer in its envelope (mount `/api` routes above).
  app.use('/api', unknownRoute, envelopeErrorHandler);
  // Anything else, on any host, answers with the error object rather than an HTML page.
  app.use(unknownRoute);
  app.use(errorHandler);
  return app;
}
