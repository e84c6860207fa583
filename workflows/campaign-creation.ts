import {
  ActivityFailure, ApplicationFailure, ParentClosePolicy, proxyActivities, proxyLocalActivities, startChild, uuid4, workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { CampaignCreateInput } from '../api/campaigns/schema';
import { campaignReview, campaignReviewWorkflowId } from './campaign-review';

// A single indexed read: a local activity saves a round trip through the server.
const { defaultPaymentMethod } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3 },
});
const { persistCampaignTree } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes', // image downloads are inside: each bounded by the upload guard's timeout
  retry: { maximumAttempts: 3, initialInterval: '500 milliseconds' },
});
// The deposit: a few quick attempts, then the API answers 502 rather than keep the caller waiting.
const { chargeDeposit } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 3, initialInterval: '500 milliseconds', backoffCoefficient: 2 },
});
// Compensations must finish, however long an outage lasts: retried without limit.
const { deleteCampaignTree, refundDeposit } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

export interface CampaignCreationInput {
  organizationId: string;
  adAccountId: string;
  body: CampaignCreateInput;
}

/** The spec error the API answers with when the saga does not complete. */
export interface SagaError {
  status: number;
  code: string;
  message: string;
  param: string | null;
}
export type CampaignCreationResult = { ok: true; campaignId: string } | { ok: false; error: SagaError };

const errorOf = (status: number, code: string, message: string, param: string | null = null): CampaignCreationResult =>
  ({ ok: false, error: { status, code, message, param } });

/** An activity's ApplicationFailure, whose type names the spec error (details[0] may carry status/param). */
function failureOf(err: unknown): ApplicationFailure | null {
  return err instanceof ActivityFailure && err.cause instanceof ApplicationFailure ? err.cause : null;
}

/**
 * Campaign creation saga: billing check → persist the tree and its assets →
 * charge the USD 10 deposit → submit for review. Each step registers its
 * compensation; any failure unwinds them in reverse, so nothing is left behind.
 */
export async function campaignCreation(input: CampaignCreationInput): Promise<CampaignCreationResult> {
  const compensations: (() => Promise<void>)[] = [];
  const unwind = async () => {
    for (const compensate of compensations.reverse()) await compensate();
  };

  // 1. Billing must be configured; nothing is created otherwise.
  const paymentMethodId = await defaultPaymentMethod(input.organizationId);
  if (!paymentMethodId) {
    return errorOf(400, 'billing_not_configured', 'The organization has no default payment method');
  }

  // The campaign id is decided here, so a retried persist finds its own earlier work.
  const campaignId = uuid4();
  let step: 'persist' | 'charge' | 'review' = 'persist';
  try {
    // 2. The tree and each ad's asset.
    compensations.push(() => deleteCampaignTree(campaignId));
    await persistCampaignTree({ ...input, campaignId });

    // 3. The deposit, idempotent across every retry of this workflow's charge.
    step = 'charge';
    const paymentIntentId = await chargeDeposit({
      organizationId: input.organizationId,
      campaignId,
      paymentMethodId,
      idempotencyKey: `${workflowInfo().workflowId}/deposit`,
    });
    compensations.push(() => refundDeposit(paymentIntentId));

    // 4. Review: a workflow of its own that outlives this one.
    step = 'review';
    await startChild(campaignReview, {
      workflowId: campaignReviewWorkflowId(campaignId),
      args: [{ campaignId }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
    });
    return { ok: true, campaignId };
  } catch (err) {
    await unwind();
    const failure = failureOf(err);
    const details = (failure?.details?.[0] ?? {}) as Partial<SagaError>;
    switch (failure?.type) {
      case 'card_declined':
        return errorOf(402, 'card_declined', 'The deposit charge was declined');
      case 'name_conflict':
        return errorOf(409, 'name_conflict', 'A campaign with that name already exists', 'name');
      case 'invalid_request':
        return errorOf(details.status ?? 400, details.code ?? 'invalid_value', details.message ?? failure.message, details.param ?? null);
      default:
        // Retries exhausted: on the payment provider it is the spec's 502; anything else is ours.
        return step === 'charge'
          ? errorOf(502, 'payment_provider_error', 'The payment provider is unavailable; nothing was created. Retry later.')
          : errorOf(500, 'internal_error', 'Campaign creation failed; nothing was created. Retry later.');
    }
  }
}

export const campaignCreationWorkflowId = (key: string) => `campaign-create-${key}`;
