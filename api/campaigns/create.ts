import { sha256Hex } from '../../lib/hash';
import { config } from '../../lib/config';
import { createCampaign } from '../../use-cases/campaigns/create-campaign';
import type { UseCaseDeps } from '../../use-cases/deps';
import { apiKeyAuthOf } from '../auth/api-key-auth';
import { toErrorResponse } from '../../lib/http/errors';
import { idempotencyKeySchema, parseIdempotencyKey, requestFingerprint, withIdempotency, type StoredResponse } from '../http/idempotency';
import { defineOperation, type Operation } from '../../lib/http/operations';
import { IMAGE_ERRORS } from '../creatives/image-errors';
import { resourceLinks } from '../http/status-actions';
import { rateLimit } from '../rate-limit/rate-limiter';
import { presentCampaign } from './presenters';
import { campaignCreateSchema } from '../../domain/campaigns/campaign-schema';
import { campaignSchema } from './resources';

/**
 * Client errors (4xx) are responses too: stored and replayed. A 5xx is answered
 * but not stored: after a failed saga (nothing was created) a retry with the same
 * key runs it again; after a 503 request_timeout it attaches to the same run.
 */
async function asResponse(run: () => Promise<StoredResponse>): Promise<StoredResponse> {
  try {
    return await run();
  } catch (err) {
    const answer = toErrorResponse(err);
    if (answer.status < 500) return { status: answer.status, body: answer.body };
    throw err;
  }
}

/** Links from a created campaign to the operations on it (OpenAPI; stateful testing follows them). */
const campaignLinks = resourceLinks('campaign', 'campaign_id', '$response.body#/id');

export function campaignCreateOperation(deps: UseCaseDeps): Operation {
  const { db } = deps;
  return defineOperation({
    id: 'createCampaign',
    method: 'post',
    path: '/v1/campaigns',
    tag: 'Campaigns',
    auth: 'apiKey',
    summary: 'Create a campaign with its ad groups and ads, charge the USD 10 deposit and submit it for review',
    body: campaignCreateSchema,
    // Validation errors are responses too: stored and replayed under the Idempotency-Key.
    handlerValidatesBody: true,
    headers: {
      'Idempotency-Key': {
        description: 'Replays the first response for the same key forever; another body under the same key is 409 idempotency_key_reused',
        schema: idempotencyKeySchema,
      },
    },
    success: { status: 201, description: 'Created: status paused, review_status in_review', schema: campaignSchema, links: campaignLinks },
    errors: [
      'required',
      'invalid_value',
      'string_too_long',
      'poll_cannot_be_ai',
      'billing_not_configured',
      'no_ad_account',
      ...IMAGE_ERRORS,
      'card_declined',
      'not_found',
      'name_conflict',
      'idempotency_key_reused',
      'internal_error',
      'payment_provider_error',
      'request_timeout',
    ],
    before: [rateLimit(db, 'campaign_create', () => config.rateLimits.campaignCreatesPerKeyPerHour)],
    handle: async (_input, req, res) => {
      const { organizationId } = apiKeyAuthOf(res);
      const key = parseIdempotencyKey(req.get('Idempotency-Key'));
      // The saga's run is named by the Idempotency-Key (one campaign, one charge per key), else by a fresh id.
      const run = (workflowKey: string | null) =>
        asResponse(async () => ({
          status: 201,
          body: presentCampaign(await createCampaign(deps, organizationId, req.body, workflowKey)),
        }));
      if (key === null) {
        const response = await run(null);
        res.status(response.status).json(response.body);
        return;
      }
      const keyDigest = sha256Hex(key).slice(0, 40);
      const response = await withIdempotency(db, { organizationId, key, fingerprint: requestFingerprint('POST', '/v1/campaigns', req.body) }, () =>
        run(`${organizationId}-${keyDigest}`),
      );
      if (response.replayed) res.set('Idempotent-Replayed', 'true');
      res.status(response.status).json(response.body);
    },
  });
}
