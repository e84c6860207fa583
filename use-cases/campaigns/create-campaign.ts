import { randomUUID } from 'node:crypto';
import { config } from '../../lib/config';
import { currentActor } from '../../lib/actor';
import { DomainError } from '../../domain/errors';
import { resolveAdAccount } from '../../domain/ad-accounts/account';
import { organizationBillingOf } from '../../domain/organizations/service';
import { findCampaign } from '../../domain/campaigns/campaigns';
import { campaignCreateSchema } from '../../domain/campaigns/campaign-schema';
import type { CampaignRow } from '../../domain/campaigns/rows';
import { bodyObject, parseOrThrow } from '../../lib/validation';
import { sha256Hex } from '../../lib/hash';
import { legacyRunOf, runCreationSaga } from '../../workflows/clients/campaign-creation';
import type { UseCaseDeps } from '../deps';

/**
 * Creates a campaign tree through the creation saga (workflows/campaign-creation.ts:
 * persist the tree, charge the deposit, open the review), and returns the row.
 * `workflowKey` names the saga run: callers sharing a key (an Idempotency-Key)
 * share one run, so they create one campaign and charge once; null for a
 * request without one (a fresh key, which no earlier run can hold). Throws the
 * spec's errors as DomainErrors; 503 `request_timeout` when the saga outlasts
 * the request (it goes on, and a retry under the same key attaches to it).
 * The campaign's id is a function of `workflowKey` (and of how many runs under
 * it failed) and is in the workflow id (operators find a campaign's creation by
 * id): one key, one sequence of ids, and at most one run that is not failed.
 */
export async function createCampaign(
  { db, temporal, eagerStart }: UseCaseDeps,
  organizationId: string,
  rawBody: unknown,
  requestKey: string | null,
): Promise<CampaignRow> {
  const body = parseOrThrow(campaignCreateSchema, bodyObject(rawBody));
  const workflowKey = requestKey ?? randomUUID();
  // Temporal is asked about a run under the old id while the database answers the reads below, not after them.
  const legacyRun = requestKey === null ? undefined : legacyRunOf(temporal, `campaign-create-${workflowKey}`);
  const [adAccountId, organization] = await Promise.all([resolveAdAccount(db, organizationId, body.ad_account_id), organizationBillingOf(db, organizationId)]);
  // Billing must be configured before anything is created; the saga charges what is read here.
  const { billing } = organization;
  if (!billing) throw new DomainError('billing_not_configured', 'The organization has no default payment method');
  const request = {
    input: { organizationId, organizationPublicId: organization.publicId, adAccountId, body, billing, actor: currentActor() },
    campaignIdOf: (run: number) => campaignIdOfCreation(workflowKey, run),
    legacyRun,
  };
  const result = await runCreationSaga({ temporal, eagerStart }, request, config.timeouts.campaignCreateMs);
  if (!result.ok) {
    const { code, message, param } = result.error;
    throw new DomainError(code, message, param);
  }
  return findCampaign(db, organizationId, result.campaignId);
}

/**
 * The id of the campaign the `run`-th saga run under `workflowKey` makes (0
 * first, 1 after one failed run, ...): a UUID drawn from SHA-256 (name-based,
 * like a version 5 UUID), so every retry under one key names the same campaigns.
 */
export function campaignIdOfCreation(workflowKey: string, run = 0): string {
  const hex = sha256Hex(`campaign-creation:${workflowKey}:${run}`);
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
