/**
 * The dashboard on `{platform_url}/dashboard`: sign-in by one-time link, the
 * pages (one HTML shell; the browser app renders them), and the dashboard's
 * own JSON endpoints under `/dashboard/api/`, authenticated by the session
 * cookie (never by an `ak_` key) and calling the domain layer directly.
 * These endpoints are not part of the spec's `/v1` OpenAPI document; errors
 * use the same error object as `/v1`.
 */
import path from 'node:path';
import express, { Router, type Request, type Response } from 'express';
import type { Client } from '@temporalio/client';
import { z } from 'zod';
import { config } from '../../lib/config';
import { createClickhouse } from '../../lib/clickhouse/client';
import { csrfTokenFor } from '../../lib/csrf';
import type { Db } from '../../lib/db';
import { jsonBody } from '../../lib/http/body';
import { unknownRoute } from '../../lib/http/errors';
import { parseOrThrow } from '../../lib/validation';
import { listApiKeys } from '../../domain/api-keys/service';
import type { CampaignAction } from '../../domain/campaigns/campaigns';
import { endDashboardSession, redeemLoginLink } from '../../domain/dashboard/sessions';
import { campaignDetail, campaignOverview, reviewQueue } from '../../domain/dashboard/views';
import { DomainError, notFound } from '../../domain/errors';
import { parseInsightsQuery, type RawQuery } from '../../domain/insights/query';
import { runInsights, type InsightsDeps } from '../../domain/insights/report';
import { mintApiKey, revokeApiKey } from '../../use-cases/api-keys/api-keys';
import { changeCampaignStatus } from '../../use-cases/campaigns/change-campaign';
import { reviewCampaign } from '../../use-cases/campaigns/review-campaign';
import { blockCampaign } from '../../use-cases/campaigns/block-campaign';
import { createApiKeySchema } from '../api-keys/routes';
import { shellPage, signInPage } from './pages';
import {
  clearSessionCookie, dashboardAuthOf, DASHBOARD_PREFIX, loadDashboardSession, memberOf, requireCsrf,
  sessionTokenOf, setSessionCookie, staffOf,
} from './session-cookie';

/** Where scripts/build-dashboard.ts writes the browser bundle. */
export const DASHBOARD_BUNDLE_DIR = path.resolve(__dirname, '../../generated/dashboard');

const PAGE_PATHS = ['/', '/campaigns/:campaign_id', '/keys', '/review', '/live'];
const CAMPAIGN_ACTIONS: CampaignAction[] = ['activate', 'pause', 'archive'];
const verdictSchema = z.strictObject({ reason: z.string().trim().max(500).optional() });

/**
 * Whether a form post comes from the dashboard's own page: browsers say so in
 * Sec-Fetch-Site; without it, a real Origin must be ours. (Origin alone is not
 * enough: under our no-referrer policy a browser sends `Origin: null`.)
 */
function fromDashboardItself(req: Request): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined) return site === 'same-origin' || site === 'none';
  const origin = req.headers.origin;
  return origin === undefined || origin === 'null' || origin === `${req.protocol}://${req.get('host')}`;
}

/** No page is cached, framed, or given scripts from anywhere but the dashboard itself. */
function securityHeaders(res: Response): void {
  res.set({
    'Content-Security-Policy': "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
  });
}

export function dashboardRoutes(db: Db, temporal: Client): Router {
  const deps = { db, temporal };
  const ch = createClickhouse(undefined, { compressResponses: false });
  const insightsDeps = (): InsightsDeps => ({ db, ch, database: config.clickhouse.database, timeoutSeconds: config.insights.queryTimeoutSeconds });
  const forms = express.urlencoded({ extended: false, limit: '4kb' });

  const router = Router();
  router.use((_req, res, next) => { securityHeaders(res); next(); });
  router.use('/assets', express.static(DASHBOARD_BUNDLE_DIR, { index: false, fallthrough: true, cacheControl: false }));
  router.use(loadDashboardSession(db));

  // --- Sign-in and sign-out -------------------------------------------------
  router.get('/login', (req, res) => {
    const token = typeof req.query.token === 'string' ? req.query.token : null;
    res.type('html').send(signInPage(token));
  });
  router.post('/login', forms, async (req, res) => {
    // Login CSRF: another site must not sign this browser in to the attacker's account.
    if (!fromDashboardItself(req)) throw new DomainError('csrf_failed', 'Sign-in must be submitted from the dashboard itself');
    const redeemed = await redeemLoginLink(db, String((req.body as Record<string, unknown> | undefined)?.token ?? ''));
    if (!redeemed) {
      res.status(401).type('html').send(signInPage(null, 'This sign-in link is invalid, expired or already used. Ask for a new one.'));
      return;
    }
    // A sign-in replaces whatever session the browser held.
    const previous = sessionTokenOf(req);
    if (previous) await endDashboardSession(db, previous);
    setSessionCookie(req, res, redeemed.sessionToken);
    res.redirect(303, `${DASHBOARD_PREFIX}/${redeemed.principal.kind === 'staff' ? 'review' : ''}`);
  });
  router.post('/logout', forms, requireCsrf, async (req, res) => {
    const auth = dashboardAuthOf(res);
    if (auth) await endDashboardSession(db, auth.token);
    clearSessionCookie(req, res);
    res.redirect(303, `${DASHBOARD_PREFIX}/login`);
  });

  // --- Pages: the shell, or the sign-in page when signed out ---------------
  router.get(PAGE_PATHS, (_req, res) => {
    const auth = dashboardAuthOf(res);
    if (!auth) return res.redirect(303, `${DASHBOARD_PREFIX}/login`);
    res.type('html').send(shellPage(auth.principal, csrfTokenFor(auth.token)));
  });

  // --- JSON endpoints ---------------------------------------------------------
  const api = Router();
  api.use(jsonBody, requireCsrf);

  api.get('/me', (_req, res) => {
    const auth = dashboardAuthOf(res);
    if (!auth) throw new DomainError('auth_required', 'Not signed in');
    const p = auth.principal;
    res.json(p.kind === 'staff'
      ? { kind: 'staff', name: p.name }
      : { kind: 'member', role: p.role, organization: { public_id: p.organizationPublicId, name: p.organizationName } });
  });

  // Advertisers: campaigns, insights, status actions.
  api.get('/campaigns', async (_req, res) => {
    res.json(await campaignOverview(insightsDeps(), memberOf(res).organizationId));
  });
  api.get('/campaigns/:campaign_id', async (req, res) => {
    res.json(await campaignDetail(db, memberOf(res).organizationId, req.params.campaign_id));
  });
  api.post('/campaigns/:campaign_id/:action', async (req, res) => {
    const { organizationId } = memberOf(res);
    const action = req.params.action as CampaignAction;
    if (!CAMPAIGN_ACTIONS.includes(action)) throw notFound('action');
    await changeCampaignStatus(deps, organizationId, req.params.campaign_id, action);
    res.json(await campaignDetail(db, organizationId, req.params.campaign_id));
  });
  // The same report code and rules as /v1's campaign and ad group insights.
  for (const [segment, level] of [['campaigns', 'campaign'], ['ad-groups', 'ad_group']] as const) {
    api.get(`/${segment}/:id/insights`, async (req, res) => {
      const { organizationId } = memberOf(res);
      const query = parseInsightsQuery(req.query as RawQuery, level);
      res.json(await runInsights(insightsDeps(), organizationId, { level, id: req.params.id }, query));
    });
  }

  // API keys (owners and admins): the platform endpoints' domain calls, with their rotation settlement.
  api.get('/api-keys', async (_req, res) => {
    res.json({ api_keys: await listApiKeys(db, memberOf(res, ['owner', 'admin']).organizationId) });
  });
  api.post('/api-keys', async (req, res) => {
    const { organizationId } = memberOf(res, ['owner', 'admin']);
    const { name } = parseOrThrow(createApiKeySchema, req.body ?? {});
    const minted = await mintApiKey(deps, organizationId, name);
    res.status(201).json({ api_key: minted.record, previous_key_expires_at: minted.rotatedOut?.expiresAt.toISOString() ?? null });
  });
  api.delete('/api-keys/:key_public_id', async (req, res) => {
    const { organizationId } = memberOf(res, ['owner', 'admin']);
    res.json(await revokeApiKey(deps, organizationId, String(req.params.key_public_id)));
  });

  // Staff reviewers: the queue and verdicts (the review workflow's signal, as `adctl review` sends it).
  for (const [path, list] of [['/review/campaigns', 'in_review'], ['/review/live', 'live']] as const) {
    api.get(path, async (req, res) => {
      staffOf(res);
      const filter = (name: string) => (typeof req.query[name] === 'string' ? String(req.query[name]) : undefined);
      res.json(await reviewQueue(db, { campaignId: filter('campaign'), organizationPublicId: filter('org') }, list));
    });
  }
  api.post('/review/campaigns/:campaign_id/:verdict', async (req, res) => {
    staffOf(res);
    const verdict = req.params.verdict;
    if (verdict !== 'approve' && verdict !== 'reject' && verdict !== 'block') throw notFound('verdict');
    const { reason } = parseOrThrow(verdictSchema, req.body ?? {});
    if (verdict !== 'approve' && !reason) throw new DomainError('required', `A ${verdict === 'block' ? 'block' : 'rejection'} needs a reason`, 'reason');
    const id = String(req.params.campaign_id);
    if (verdict === 'block') {
      const blocked = await blockCampaign(deps, id, reason!);
      res.json({ campaign_id: blocked.campaign_id, lifecycle_state: blocked.lifecycle_state, lifecycle_reason: blocked.reason });
      return;
    }
    const after = await reviewCampaign(deps, id, verdict === 'approve' ? 'approved' : 'rejected', reason);
    res.json({ campaign_id: after.id, review_status: after.reviewStatus, review_reason: after.reviewReason });
  });

  api.use(unknownRoute);
  router.use('/api', api);
  return router;
}
