import {
  ActivityFailure,
  ApplicationFailure,
  ParentClosePolicy,
  patched,
  proxyActivities,
  proxyLocalActivities,
  startChild,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { CampaignCreateInput } from '../domain/campaigns/campaign-schema';
import type { Actor } from '../lib/actor';
import { campaignReview, campaignReviewWorkflowId } from './campaign-review';
import { campaignSearchAttributes, type CampaignSearchAttributes } from './search-attributes';

// Short calls run as local activities: each saves a round trip through the server. recordDeposit,
// openCampaignReview and confirmDeposit are steps of campaignCreationAsBefore; the two-stage saga
// runs them inside settleCampaignCreation.
const { defaultPaymentMethod, recordDeposit } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3 },
});
const persistOptions = {
  startToCloseTimeout: '5 minutes', // image downloads are inside, each bounded by the upload guard's timeout
  retry: { maximumAttempts: 3, initialInterval: '500 milliseconds' },
} as const;
const { persistCampaignTree } = proxyActivities<Activities>(persistOptions);
// Without image downloads the tree is a few inserts: local, so the saga needs no second workflow task.
const { persistCampaignTree: persistCampaignTreeLocally } = proxyLocalActivities<Activities>(persistOptions);
// The review is started by the worker's client, not as a child: no workflow task waits for the child's start.
const { openCampaignReview } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 3, initialInterval: '500 milliseconds' },
});
// The deposit: a few quick attempts, then the API answers 502 rather than keep the caller waiting.
const { createDepositIntent, confirmDeposit, settleCampaignCreation } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 3, initialInterval: '500 milliseconds', backoffCoefficient: 2 },
});
// Compensations must finish, however long an outage lasts: retried without limit.
const { deleteCampaignTree, releaseDeposit, closeCampaignReview } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

export interface CampaignCreationInput {
  organizationId: string;
  adAccountId: string;
  body: CampaignCreateInput;
  /**
   * The campaign's id, decided before the start (it is in the workflow id:
   * campaignCreationWorkflowId). Runs started before it was an input have
   * none and draw one inside.
   */
  campaignId?: string;
  /** The organization's public id, for the review's search attributes (absent in older runs). */
  organizationPublicId?: string;
  /** Where the campaign's review runs: the main queue (runs before the saga had a queue of its own ran there too, and have none). */
  reviewTaskQueue?: string;
  /**
   * What the deposit is charged to, read by the api with the request (which
   * answers billing_not_configured itself). Runs started before it was an
   * input have none and read it in their first step.
   */
  billing?: { paymentMethodId: string; customerId: string | null } | null;
  /** Who asked (the audit log's actor of what the tree step writes); absent in older runs. */
  actor?: Actor;
}

/** The spec error the API answers with when the saga does not complete. */
export interface SagaError {
  code: string;
  message: string;
  param: string | null;
}
/**
 * Outcomes the client caused (4xx) are results; a 5xx outcome (provider down,
 * our own failure) fails the workflow instead, with the SagaError as details,
 * so that a retry under the same Idempotency-Key may start a new run.
 */
export type CampaignCreationResult = { ok: true; campaignId: string } | { ok: false; error: SagaError };

const sagaError = (code: string, message: string, param: string | null = null): SagaError => ({ code, message, param });

/** Failures on our side (provider down, our own bug), as opposed to outcomes the client caused. */
const SERVER_FAULTS = new Set(['payment_provider_error', 'internal_error']);

/**
 * An activity's ApplicationFailure, whose type names the spec error (details[0]
 * may carry code/param). Activities wrap it in an ActivityFailure; local
 * activities surface it as it is.
 */
function failureOf(err: unknown): ApplicationFailure | null {
  if (err instanceof ActivityFailure) return err.cause instanceof ApplicationFailure ? err.cause : null;
  return err instanceof ApplicationFailure ? err : null;
}

type Step = 'persist' | 'charge' | 'record' | 'review';

/** The spec's error for a failure at `step`. */
function errorFor(err: unknown, step: Step): SagaError {
  const failure = failureOf(err);
  const details = (failure?.details?.[0] ?? {}) as Partial<SagaError>;
  switch (failure?.type) {
    case 'card_declined':
      return sagaError('card_declined', 'The deposit charge was declined');
    case 'name_conflict':
      return sagaError('name_conflict', 'A campaign with that name already exists', 'name');
    case 'invalid_request':
      return sagaError(details.code ?? 'invalid_value', details.message ?? failure.message, details.param ?? null);
    case 'internal_error': // the settlement's record or review (activities/creation-settlement.ts)
      return internalError;
    default:
      // Retries exhausted: on the payment provider it is the spec's 502; anything else is ours.
      return step === 'charge' ? sagaError('payment_provider_error', 'The payment provider is unavailable; nothing was created. Retry later.') : internalError;
  }
}

const internalError = sagaError('internal_error', 'Campaign creation failed; nothing was created. Retry later.');

/** One run of the saga: what its steps need, and the compensations registered so far. */
interface SagaRun {
  input: CampaignCreationInput;
  billing: NonNullable<CampaignCreationInput['billing']>;
  campaignId: string;
  compensations: (() => Promise<void>)[];
}

/**
 * Campaign creation saga: billing (as the api read it) → persist the tree and
 * its assets, beside the deposit's unconfirmed intent → charge the USD 10
 * deposit → submit for review, beside the deposit's record. Each step registers its
 * compensation before it can have an effect; any failure unwinds them in
 * reverse, so nothing is left behind and no deposit is kept. Every step of a
 * successful run is a local activity (the tree's only when no image is
 * downloaded), so it takes one workflow task; each is idempotent, since a
 * worker killed mid-task leaves them to run again on the next worker.
 */
export async function campaignCreation(input: CampaignCreationInput): Promise<CampaignCreationResult> {
  // Runs started before the saga had two stages replay the code they ran. One patch for the whole
  // version: each patched() call costs the run a marker and a search-attribute update.
  if (!patched('campaign-creation-two-stages')) return campaignCreationAsBefore(input);

  // 1. Billing must be configured; nothing is created otherwise (the api checks first; a start without it reads it here).
  const billing = input.billing !== undefined ? input.billing : await defaultPaymentMethod(input.organizationId);
  if (!billing) {
    return { ok: false, error: sagaError('billing_not_configured', 'The organization has no default payment method') };
  }
  // The campaign id is fixed for the run, so a retried persist finds its own earlier work.
  const run: SagaRun = { input, billing, campaignId: input.campaignId ?? uuid4(), compensations: [] };
  try {
    await settle(run, await prepare(run));
    return { ok: true, campaignId: run.campaignId };
  } catch (err) {
    for (const compensate of run.compensations.reverse()) await compensate();
    const error = err instanceof StepFailure ? errorFor(err.cause, err.step) : errorFor(err, 'persist');
    if (SERVER_FAULTS.has(error.code)) throw ApplicationFailure.nonRetryable(error.message, error.code, error);
    return { ok: false, error };
  }
}

/**
 * The first stage: 2. the tree and each ad's asset, beside 3. the deposit's unconfirmed intent, whose
 * id lets the compensation undo whatever the charge does. Creating the intent charges nothing, so it
 * need not wait for the tree; a failed tree cancels it. Returns the intent's id.
 */
async function prepare({ input, billing, campaignId, compensations }: SagaRun): Promise<string> {
  compensations.push(() => deleteCampaignTree(campaignId));
  const persist = downloadsImages(input.body) ? persistCampaignTree : persistCampaignTreeLocally;
  const createIntent = async () => {
    const idempotencyKey = `${workflowInfo().workflowId}/deposit`;
    const id = await atStep('charge', createDepositIntent({ organizationId: input.organizationId, campaignId, ...billing, idempotencyKey }));
    compensations.push(() => releaseDeposit(id));
    return id;
  };
  const [, paymentIntentId] = await allOf([atStep('persist', persist({ ...input, campaignId })), createIntent()] as const);
  return paymentIntentId;
}

/**
 * The second stage: 3. the charge, then 4. its record beside the review, a workflow of its own that
 * outlives this one. One local activity (activities/creation-settlement.ts says why).
 */
async function settle({ input, campaignId, compensations }: SagaRun, paymentIntentId: string): Promise<void> {
  const review = { campaignId, taskQueue: input.reviewTaskQueue ?? workflowInfo().taskQueue, searchAttributes: reviewSearchAttributes(input, campaignId) };
  const idempotencyKey = `${workflowInfo().workflowId}/deposit-confirm`;
  const settled = settleCampaignCreation({ paymentIntentId, idempotencyKey, review }).catch((err: unknown) => {
    // A start whose answer was lost leaves a review behind a failed step: the rollback ends it. A declined
    // charge comes before the start in every attempt (a confirmed one is replayed under its key), so it leaves none.
    if (failureOf(err)?.type !== 'card_declined') compensations.push(() => closeCampaignReview(campaignId));
    throw err;
  });
  await atStep('charge', settled);
}

/** A step's failure, with the step it came from: steps run side by side, so the order of the code no longer tells. */
class StepFailure extends Error {
  constructor(
    readonly step: Step,
    override readonly cause: unknown,
  ) {
    super(`campaign creation failed at ${step}`);
  }
}

function atStep<T>(step: Step, running: Promise<T>): Promise<T> {
  return running.catch((err: unknown) => {
    throw new StepFailure(step, err);
  });
}

/** Waits for every step (no compensation may run while one is still going), then throws the first failure. */
async function allOf<T extends readonly unknown[]>(steps: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const settled = await Promise.allSettled(steps);
  const failed = settled.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((r) => (r as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

/** Whether persisting the tree downloads images (an `image_url`): then it runs as an activity of its own. */
function downloadsImages(body: CampaignCreateInput): boolean {
  return body.ad_groups.some((group) => group.ads.some((ad) => 'image_url' in ad.creative && ad.creative.image_url !== undefined));
}

/** Operators find a review in the Temporal UI by campaign name, id or organization (docs/operations.md, Temporal). */
function reviewSearchAttributes(input: CampaignCreationInput, campaignId: string): CampaignSearchAttributes {
  return input.organizationPublicId
    ? campaignSearchAttributes({ campaignId, campaignName: input.body.name, organizationPublicId: input.organizationPublicId })
    : { CampaignId: [campaignId], CampaignName: [input.body.name] };
}

/**
 * The saga's workflow id: the campaign's id is in it, so the Temporal UI finds a
 * campaign's creation by id. The id comes from the request's idempotency key
 * (use-cases/campaigns/create-campaign.ts), so retries find the same run.
 */
export const campaignCreationWorkflowId = (campaignId: string) => `campaign-create-${campaignId}`;

/**
 * The saga as runs started before the two stages ran it (kept, unchanged, until no such run is within
 * the namespace's retention): the tree, then the intent, the charge, and the review beside the
 * deposit's record, each a step of its own; runs started before those fit in one workflow task
 * took the tree as an activity and the review as a child.
 */
async function campaignCreationAsBefore(input: CampaignCreationInput): Promise<CampaignCreationResult> {
  const inOneTask = patched('campaign-creation-in-one-task');
  const compensations: (() => Promise<void>)[] = [];
  const billing = input.billing !== undefined ? input.billing : await defaultPaymentMethod(input.organizationId);
  if (!billing) {
    return { ok: false, error: sagaError('billing_not_configured', 'The organization has no default payment method') };
  }
  // uuid4 for runs started before the campaign id was an input: replaying their history draws it again.
  const campaignId = input.campaignId ?? uuid4();
  const { workflowId } = workflowInfo();
  const taskQueue = input.reviewTaskQueue ?? workflowInfo().taskQueue;
  let step: Step = 'persist';
  try {
    compensations.push(() => deleteCampaignTree(campaignId));
    const persist = inOneTask && !downloadsImages(input.body) ? persistCampaignTreeLocally : persistCampaignTree;
    await persist({ ...input, campaignId });
    step = 'charge';
    const paymentIntentId = await createDepositIntent({
      organizationId: input.organizationId,
      campaignId,
      ...billing,
      idempotencyKey: `${workflowId}/deposit`,
    });
    compensations.push(() => releaseDeposit(paymentIntentId));
    await confirmDeposit({ paymentIntentId, idempotencyKey: `${workflowId}/deposit-confirm` });
    const searchAttributes = reviewSearchAttributes(input, campaignId);
    if (patched('campaign-creation-review-rollback')) {
      step = 'review';
      compensations.push(() => closeCampaignReview(campaignId));
      await allOf([recordDeposit(campaignId, paymentIntentId), openCampaignReview({ campaignId, taskQueue, searchAttributes })]);
      return { ok: true, campaignId };
    }
    step = 'record';
    await recordDeposit(campaignId, paymentIntentId);
    step = 'review';
    if (inOneTask) await openCampaignReview({ campaignId, taskQueue, searchAttributes });
    else {
      const child = { workflowId: campaignReviewWorkflowId(campaignId), parentClosePolicy: ParentClosePolicy.ABANDON, searchAttributes };
      await startChild(campaignReview, { ...child, args: [{ campaignId }] });
    }
    return { ok: true, campaignId };
  } catch (err) {
    for (const compensate of compensations.reverse()) await compensate();
    const error = errorFor(err, step);
    if (SERVER_FAULTS.has(error.code)) throw ApplicationFailure.nonRetryable(error.message, error.code, error);
    return { ok: false, error };
  }
}
