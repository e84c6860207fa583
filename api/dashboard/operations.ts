/**
 * The dashboard's own JSON endpoints (`/dashboard/api/...`), declared like
 * every other operation (lib/http/operations.ts) and documented in the api's
 * OpenAPI document, tag Dashboard: authenticated by the session cookie (never
 * by an `ak_` key), every state change carrying the session's CSRF token
 * (`X-CSRF-Token`), errors in the `/v1` error object. Members see their
 * organization's campaigns (with their delivery), insights, keys and account
 * settings (account.ts); staff reviewers the review queue and edited creatives.
 */
import { Router, type RequestHandler } from 'express';
import { z } from 'zod';
import { config } from '../../lib/config';
import type { ClickHouseClient } from '@clickhouse/client';
import type { AssetStore } from '../../lib/asset-store';
import type { Db } from '../../lib/db';
import { jsonBody } from '../../lib/http/body';
import { unknownRoute } from '../../lib/http/errors';
import { mountOperations, type Operation } from '../../lib/http/operations';
import { listApiKeys } from '../../domain/api-keys/service';
import type { CampaignAction } from '../../domain/campaigns/campaigns';
import { campaignDetail, campaignOverview, reviewQueue } from './views';
import { DomainError } from '../../domain/errors';
import { parseInsightsQuery, type RawQuery } from '../../domain/insights/query';
import { runInsights, type InsightsDeps } from '../../domain/insights/report';
import { campaignDelivery } from '../../domain/serving/diagnostics';
import { mintApiKey, revokeApiKey } from '../../use-cases/api-keys/api-keys';
import { blockCampaign } from '../../use-cases/campaigns/block-campaign';
import { changeCampaignStatus } from '../../use-cases/campaigns/change-campaign';
import { reviewCampaign } from '../../use-cases/campaigns/review-campaign';
import { reviewCreative } from '../../use-cases/creatives/review-creative';
import type { UseCaseDeps } from '../../use-cases/deps';
import { apiKeyRecordSchema, createApiKeySchema } from '../api-keys/routes';
import { campaignDeliverySchema } from '../campaigns/delivery';
import { auditEntrySchema, auditFilterSchema } from '../audit/routes';
import { EXCLUSIVE_CURSORS, listPageSchema, listQuerySchema, pageRequest, presentList } from '../http/pagination';
import { listAuditLog, presentAuditEntry } from '../../domain/audit/log';
import { accountOperations } from './account';
import { relevanceTestDashboardOperation } from './relevance';
import { DASHBOARD_API, dashboardOperation } from './operation';
import { dashboardAuthOf, loadDashboardSession, memberOf, requireCsrf, requireSessionBeforeBody, securityHeaders, staffOf } from './session-cookie';

/** Views shaped for the dashboard's own pages (api/dashboard/views.ts), not a public contract. */
const view = z.looseObject({});
const CAMPAIGN_ACTIONS = ['activate', 'pause', 'archive'] as const satisfies readonly CampaignAction[];
const VERDICTS = ['approve', 'reject', 'block'] as const;
const verdictSchema = z.strictObject({ reason: z.string().trim().max(500).optional() });
const creativeVerdictSchema = verdictSchema.extend({
  revision: z.int().min(1).max(2_147_483_647).optional().describe('The revision reviewed (default: the current one); a newer one is left waiting'),
});
const filterQuery = z.object({ campaign: z.string().max(64).optional(), org: z.string().max(64).optional() });

const owners = ['owner', 'admin'] as const;

/** `ch`: the api's ClickHouse client for reports (shared with /v1 insights); `assets`: where logos are stored. */
export function dashboardOperations(deps: UseCaseDeps & { assets: AssetStore }, ch: ClickHouseClient): Operation[] {
  return [
    ...campaignOperations(deps, ch),
    ...apiKeyOperations(deps),
    ...accountOperations(deps),
    auditLogOperation(deps),
    relevanceTestDashboardOperation(deps),
    ...reviewOperations(deps),
    ...creativeReviewOperations(deps),
  ];
}

/** The Activity page: the organization's audit log, as GET /v1/audit_log pages it (any member). */
function auditLogOperation({ db }: UseCaseDeps): Operation {
  const query = listQuerySchema(auditFilterSchema);
  return dashboardOperation({
    id: 'dashboardAuditLog',
    method: 'get',
    path: `/audit-log`,
    query,
    exclusiveQuery: EXCLUSIVE_CURSORS,
    summary: "The organization's audit log (as GET /v1/audit_log)",
    success: { status: 200, description: 'A page of audit entries', schema: listPageSchema(auditEntrySchema) },
    errors: ['invalid_value', 'not_found'],
    handle: async ({ query: parsed }, _req, res) =>
      presentList(await listAuditLog(db, memberOf(res).organizationId, parsed, pageRequest(parsed)), presentAuditEntry),
  });
}

/** Who is signed in, and the member's campaigns: list, detail, status actions, insights. */
function campaignOperations(deps: UseCaseDeps, ch: ClickHouseClient): Operation[] {
  const { db } = deps;
  const insightsDeps = (): InsightsDeps => ({ db, ch, database: config.clickhouse.database, timeoutSeconds: config.insights.queryTimeoutSeconds });
  const insights = ([segment, level]: readonly ['campaigns' | 'ad-groups', 'campaign' | 'ad_group']) =>
    dashboardOperation({
      id: `dashboard${level === 'campaign' ? 'Campaign' : 'AdGroup'}Insights`,
      method: 'get',
      path: `/${segment}/:id/insights`,
      summary: `A ${level.replace('_', ' ')}'s insights, with the same query and rules as /v1`,
      handlerValidatesQuery: true,
      success: { status: 200, description: 'The report', schema: view },
      errors: ['invalid_value', 'not_found', 'invalid_time_range', 'range_too_wide', 'unknown_field', 'invalid_filter', 'analytics_timeout'],
      handle: async ({ params }, req, res) =>
        runInsights(insightsDeps(), memberOf(res).organizationId, { level, id: params.id }, parseInsightsQuery(req.query as RawQuery, level)),
    });

  return [
    dashboardOperation({
      id: 'dashboardMe',
      method: 'get',
      path: `/me`,
      summary: 'Who is signed in',
      success: { status: 200, description: 'A member (role, organization) or a staff reviewer', schema: view },
      handle: (_input, _req, res) => {
        const auth = dashboardAuthOf(res);
        if (!auth) throw new DomainError('auth_required', 'Not signed in');
        const p = auth.principal;
        return p.kind === 'staff'
          ? { kind: 'staff', name: p.name }
          : { kind: 'member', role: p.role, organization: { public_id: p.organizationPublicId, name: p.organizationName } };
      },
    }),
    dashboardOperation({
      id: 'dashboardCampaigns',
      method: 'get',
      path: `/campaigns`,
      summary: "The organization's campaigns with their delivery",
      success: { status: 200, description: 'The campaign list', schema: view },
      handle: async (_input, _req, res) => campaignOverview(insightsDeps(), memberOf(res).organizationId),
    }),
    dashboardOperation({
      id: 'dashboardCampaign',
      method: 'get',
      path: `/campaigns/:campaign_id`,
      summary: 'One campaign, its ad groups and ads',
      success: { status: 200, description: 'The campaign', schema: view },
      errors: ['not_found'],
      handle: async ({ params }, _req, res) => campaignDetail(db, memberOf(res).organizationId, params.campaign_id),
    }),
    campaignDeliveryOperation(db, ch),
    ...CAMPAIGN_ACTIONS.map((action) =>
      dashboardOperation({
        id: `dashboard${action[0].toUpperCase()}${action.slice(1)}Campaign`,
        method: 'post',
        path: `/campaigns/:campaign_id/${action}`,
        summary: `${action[0].toUpperCase()}${action.slice(1)} a campaign (as the /v1 status action)`,
        success: { status: 200, description: 'The campaign after the change', schema: view },
        errors: ['not_found', 'campaign_not_approved', 'campaign_terminal', 'campaign_not_running', 'cannot_archive'],
        handle: async ({ params }, _req, res) => {
          const { organizationId } = memberOf(res);
          await changeCampaignStatus(deps, organizationId, params.campaign_id, action);
          return campaignDetail(db, organizationId, params.campaign_id);
        },
      }),
    ),
    insights(['campaigns', 'campaign']),
    insights(['ad-groups', 'ad_group']),
  ];
}

/** The campaign page's delivery panel: what GET /v1/campaigns/{id}/delivery answers, for the signed-in member's organization. */
function campaignDeliveryOperation(db: UseCaseDeps['db'], ch: ClickHouseClient): Operation {
  return dashboardOperation({
    id: 'dashboardCampaignDelivery',
    method: 'get',
    path: `/campaigns/:campaign_id/delivery`,
    summary: 'Why the campaign is or is not delivering: its status and issues, with the last hour of auctions (as GET /v1/campaigns/{id}/delivery)',
    success: { status: 200, description: 'The delivery status and issues', schema: campaignDeliverySchema },
    errors: ['not_found'],
    handle: async ({ params }, _req, res) =>
      campaignDelivery({ db, ch, database: config.clickhouse.database }, memberOf(res).organizationId, params.campaign_id),
  });
}

/** The organization's API keys (owners and admins). */
function apiKeyOperations(deps: UseCaseDeps): Operation[] {
  const { db } = deps;
  return [
    dashboardOperation({
      id: 'dashboardApiKeys',
      method: 'get',
      path: `/api-keys`,
      summary: "The organization's API keys (owners and admins; no secrets)",
      success: { status: 200, description: 'Key records', schema: z.object({ api_keys: z.array(apiKeyRecordSchema) }) },
      handle: async (_input, _req, res) => ({ api_keys: await listApiKeys(db, memberOf(res, [...owners]).organizationId) }),
    }),
    dashboardOperation({
      id: 'dashboardMintApiKey',
      method: 'post',
      path: `/api-keys`,
      body: createApiKeySchema,
      summary: 'Mint an API key (owners and admins); the active one stays valid for its grace window',
      success: {
        status: 201,
        description: 'The new key with its secret (shown once), and when the previous key expires',
        schema: z.object({ api_key: apiKeyRecordSchema.extend({ secret: z.string() }), previous_key_expires_at: z.string().nullable() }),
      },
      errors: ['string_too_long', 'invalid_value', 'rate_limit_exceeded'],
      handle: async ({ body }, _req, res) => {
        const minted = await mintApiKey(deps, memberOf(res, [...owners]).organizationId, body.name);
        return { api_key: minted.record, previous_key_expires_at: minted.rotatedOut?.expiresAt.toISOString() ?? null };
      },
    }),
    dashboardOperation({
      id: 'dashboardRevokeApiKey',
      method: 'delete',
      path: `/api-keys/:key_public_id`,
      summary: 'Revoke a key at once (owners and admins)',
      success: { status: 200, description: 'Revoked', schema: z.object({ public_id: z.uuid(), revoked: z.literal(true) }) },
      errors: ['not_found'],
      handle: async ({ params }, _req, res) => revokeApiKey(deps, memberOf(res, [...owners]).organizationId, params.key_public_id),
    }),
  ];
}

/** The staff's review queues and verdicts. */
function reviewOperations(deps: UseCaseDeps): Operation[] {
  return [
    ...(
      [
        ['campaigns', 'in_review'],
        ['live', 'live'],
      ] as const
    ).map(([segment, list]) =>
      dashboardOperation({
        id: segment === 'campaigns' ? 'dashboardReviewQueue' : 'dashboardLiveQueue',
        method: 'get',
        path: `/review/${segment}`,
        summary: segment === 'campaigns' ? 'Campaigns, or edited creatives of approved ones, waiting for review (staff)' : 'Live campaigns (staff)',
        query: filterQuery,
        success: { status: 200, description: 'The queue', schema: view },
        errors: ['invalid_value', 'string_too_long'],
        handle: async ({ query }, _req, res) => {
          staffOf(res);
          return reviewQueue(deps.db, { campaignId: query.campaign, organizationPublicId: query.org }, list);
        },
      }),
    ),
    ...VERDICTS.map((verdict) =>
      dashboardOperation({
        id: `dashboard${verdict[0].toUpperCase()}${verdict.slice(1)}Campaign`,
        method: 'post',
        path: `/review/campaigns/:campaign_id/${verdict}`,
        body: verdictSchema,
        summary:
          verdict === 'approve' ? 'Approve a campaign in review (staff)' : `${verdict === 'block' ? 'Block' : 'Reject'} a campaign, with a reason (staff)`,
        success: { status: 200, description: "The campaign's review status, or its block", schema: view },
        errors: ['not_found', 'required', 'review_closed', 'invalid_value', 'string_too_long'],
        handle: async ({ params, body }, _req, res) => {
          staffOf(res);
          const { reason } = body;
          if (verdict !== 'approve' && !reason) throw new DomainError('required', `A ${verdict === 'block' ? 'block' : 'rejection'} needs a reason`, 'reason');
          if (verdict === 'block') {
            const blocked = await blockCampaign(deps, params.campaign_id, reason!);
            return { campaign_id: blocked.campaign_id, lifecycle_state: blocked.lifecycle_state, lifecycle_reason: blocked.reason };
          }
          const after = await reviewCampaign(deps, params.campaign_id, verdict === 'approve' ? 'approved' : 'rejected', reason);
          return { campaign_id: after.id, review_status: after.reviewStatus, review_reason: after.reviewReason };
        },
      }),
    ),
  ];
}

/** The staff's verdicts on edited creatives of approved campaigns (listed in the review queue beside the version that serves). */
function creativeReviewOperations(deps: UseCaseDeps): Operation[] {
  return (['approve', 'reject'] as const).map((verdict) =>
    dashboardOperation({
      id: `dashboard${verdict === 'approve' ? 'Approve' : 'Reject'}Creative`,
      method: 'post',
      path: `/review/ads/:ad_id/${verdict}`,
      body: creativeVerdictSchema,
      summary:
        verdict === 'approve'
          ? "Approve an ad's edited creative (staff): it serves from then on"
          : "Reject an ad's edited creative, with a reason (staff): the approved one keeps serving",
      success: { status: 200, description: 'The verdict as recorded (`stale` when the creative changed since the revision reviewed)', schema: view },
      errors: ['not_found', 'required', 'invalid_value', 'string_too_long'],
      handle: async ({ params, body }, _req, res) => {
        staffOf(res);
        if (verdict === 'reject' && !body.reason) throw new DomainError('required', 'A rejection needs a reason', 'reason');
        return reviewCreative(deps, params.ad_id, verdict === 'approve' ? 'approved' : 'rejected', body.reason, body.revision);
      },
    }),
  );
}

/**
 * Bodies are JSON, read before the CSRF check (which also accepts the token as a
 * JSON field); a multipart upload (the account's logo) is left for its operation
 * to stream, and its CSRF token comes in the header.
 */
const jsonUnlessMultipart: RequestHandler = (req, res, next) => (req.is('multipart/form-data') ? next() : jsonBody(req, res, next));

/** The JSON endpoints' router: the session from the cookie (a state change without one refused before its body), the CSRF check of state changes, the operations, 404 beyond. */
export function dashboardApiRoutes(db: Db, operations: Operation[]): Router {
  const router = Router();
  router.use(
    DASHBOARD_API,
    (_req, res, next) => {
      securityHeaders(res);
      next();
    },
    loadDashboardSession(db),
    requireSessionBeforeBody,
    jsonUnlessMultipart,
    requireCsrf,
  );
  router.use(mountOperations(operations));
  router.use(DASHBOARD_API, unknownRoute);
  return router;
}
