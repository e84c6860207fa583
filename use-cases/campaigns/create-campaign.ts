import { config } from '../../lib/config';
import { DomainError } from '../../domain/errors';
import { resolveAdAccount } from '../../domain/ad-accounts/account';
import { campaignCreateSchema } from '../../domain/campaigns/campaign-schema';
import type { CampaignRow } from '../../domain/campaigns/rows';
import { bodyObject, parseOrThrow } from '../../lib/validation';
import { campaignCreationWorkflowId } from '../../workflows/campaign-creation';
import { runCreationSaga } from '../../workflows/clients/campaign-creation';
import type { UseCaseDeps } from '../deps';

/**
 * Creates a campaign tree through the creation saga (workflows/campaign-creation.ts:
 * persist the tree, charge the deposit, open the review), and returns the row.
 * `workflowKey` names the saga run: callers sharing a key (an Idempotency-Key)
 * share one run, so they create one campaign and charge once. Throws the
 * spec's errors as DomainErrors; 503 `request_timeout` when the saga outlasts
 * the request (it goes on, and a retry under the same key attaches to it).
 */
export async function createCampaign({ db, temporal }: UseCaseDeps, organizationId: string, rawBody: unknown, workflowKey: string): Promise<CampaignRow> {
  const body = parseOrThrow(campaignCreateSchema, bodyObject(rawBody));
  const adAccountId = await resolveAdAccount(db, organizationId, body.ad_account_id);
  const workflowId = campaignCreationWorkflowId(workflowKey);
  const result = await runCreationSaga(temporal, workflowId, { organizationId, adAccountId, body }, config.timeouts.campaignCreateMs);
  if (!result.ok) {
    const { code, message, param } = result.error;
    throw new DomainError(code, message, param);
  }
  return db.campaign.findUniqueOrThrow({ where: { id: result.campaignId } });
}
