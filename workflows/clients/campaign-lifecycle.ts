import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy, WorkflowNotFoundError, type Client, type WorkflowHandle } from '@temporalio/client';
import type { Db } from '../../lib/db';
import { temporalConfig } from '../../temporal.config';
import { isUuid } from '../../domain/ids';
import { blockCampaign as recordBlock, visibleCampaignStatus } from '../../domain/campaigns/lifecycle';
import type { CampaignRow } from '../../domain/campaigns/rows';
import {
  blockSignal, budgetExhaustedSignal, campaignArchivedSignal, campaignLifecycle, campaignLifecycleWorkflowId, scheduleChangedSignal,
} from '../campaign-lifecycle';

/**
 * How the api, adctl and the trackers reach a campaign's lifecycle workflow
 * (workflows/campaign-lifecycle.ts). The review's approval starts it; these
 * start it for campaigns approved before it existed, and signal it. A signal
 * to a campaign with no running workflow (not approved yet, already ended)
 * is no error: it answers false.
 */

/** Idempotent: a running (or already finished) workflow is left alone; only a failed one is started again. */
export async function startCampaignLifecycle(temporal: Client, campaignId: string): Promise<{ started: boolean }> {
  try {
    await temporal.workflow.start(campaignLifecycle, {
      taskQueue: temporalConfig.taskQueues.main,
      workflowId: campaignLifecycleWorkflowId(campaignId),
      args: [{ campaignId }],
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
    });
    return { started: true };
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return { started: false };
    throw err;
  }
}

/**
 * Starts the lifecycle workflow of every approved campaign that may still serve
 * and has none (those approved before the workflow existed, or whose start was
 * lost): `adctl lifecycle backfill`. Safe to repeat: running ones are left alone.
 */
export async function backfillCampaignLifecycles(db: Db, temporal: Client, organizationId?: string): Promise<{ campaigns: number; started: number }> {
  const campaigns = await db.campaign.findMany({
    where: { reviewStatus: 'approved', lifecycleState: null, status: { not: 'archived' }, ...(organizationId ? { organizationId } : {}) },
    select: { id: true },
    orderBy: { id: 'asc' },
  });
  let started = 0;
  // A few at a time: each is one round trip to Temporal.
  const queue = campaigns.map((c) => c.id);
  await Promise.all(Array.from({ length: 8 }, async () => {
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      if ((await startCampaignLifecycle(temporal, id)).started) started += 1;
    }
  }));
  return { campaigns: campaigns.length, started };
}

async function signal(temporal: Client, campaignId: string, send: (handle: WorkflowHandle<typeof campaignLifecycle>) => Promise<void>): Promise<boolean> {
  try {
    await send(temporal.workflow.getHandle<typeof campaignLifecycle>(campaignLifecycleWorkflowId(campaignId)));
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

/** A charge spent the campaign's budget: the workflow re-checks the spend store and completes it. */
export const signalBudgetExhausted = (temporal: Client, campaignId: string) =>
  signal(temporal, campaignId, (handle) => handle.signal(budgetExhaustedSignal));

/** The campaign's start_time, end_time or budget changed: timers re-armed, budget re-checked. */
/**
 * What the delivery ledger calls when a charge exhausts budgets (after its
 * commit, off the request path): each campaign's lifecycle workflow re-checks
 * the spend store and completes the campaign. A lost signal only delays the
 * completion (the workflow re-reads the campaign periodically); the auction has
 * already dropped the campaign on the ledger's notification.
 */
export function budgetExhaustionSignaller(temporal: Client) {
  return (campaignIds: string[]) => {
    for (const id of campaignIds) {
      signalBudgetExhausted(temporal, id).catch((err: Error) => console.error(`campaign lifecycle budget exhaustion of ${id} not signalled: ${err.message}`));
    }
  };
}

export const signalScheduleChanged = (temporal: Client, campaign: Pick<CampaignRow, 'id' | 'startTime' | 'endTime'>) =>
  signal(temporal, campaign.id, (handle) => handle.signal(scheduleChangedSignal, {
    startTime: campaign.startTime.toISOString(),
    endTime: campaign.endTime?.toISOString() ?? null,
  }));

/** The advertiser archived the campaign: its workflow ends. */
export const signalCampaignArchived = (temporal: Client, campaignId: string) =>
  signal(temporal, campaignId, (handle) => handle.signal(campaignArchivedSignal));

/** How long a request waits for a lifecycle signal before answering anyway. */
const REQUEST_WAIT_MS = 2000;

/**
 * Signals sent from a request path, after its change is committed: they wait
 * at most REQUEST_WAIT_MS (an unreachable Temporal would otherwise hold the
 * answer for 20 s and more) and log failures instead of throwing. The
 * workflow re-reads its campaign periodically, so a lost signal only delays.
 */
export function campaignLifecycleNotifier(temporal: Client, waitMs = REQUEST_WAIT_MS) {
  const quietly = async (what: string, work: Promise<unknown>) => {
    let timer: NodeJS.Timeout | undefined;
    const logged = work.catch((err: Error) => console.error(`campaign lifecycle ${what} not signalled: ${err.message}`));
    await Promise.race([logged, new Promise((resolve) => { timer = setTimeout(resolve, waitMs); })]);
    clearTimeout(timer);
  };
  return {
    scheduleChanged: (campaign: Pick<CampaignRow, 'id' | 'startTime' | 'endTime'>) =>
      quietly(`schedule change of ${campaign.id}`, signalScheduleChanged(temporal, campaign)),
    archived: (campaignId: string) => quietly(`archive of ${campaignId}`, signalCampaignArchived(temporal, campaignId)),
  };
}

/**
 * A reviewer's block (`adctl review block`): written at once, whatever the
 * campaign's state, so it stops serving as soon as the auction's index
 * reloads (the update notifies it), even if no worker runs; then the running
 * lifecycle workflow, if any, is signalled so it records the block and ends.
 */
export async function blockCampaign(db: Db, temporal: Client, campaignId: string, reason: string) {
  const campaign = isUuid(campaignId) ? await db.campaign.findUnique({ where: { id: campaignId.toLowerCase() } }) : null;
  if (!campaign) throw new Error(`no such campaign: ${campaignId}`);
  const blocked = await recordBlock(db, campaign.id, reason);
  await signal(temporal, campaign.id, (handle) => handle.signal(blockSignal, { reason: blocked.lifecycleReason ?? reason }));
  return {
    campaign_id: blocked.id,
    status: visibleCampaignStatus(blocked),
    lifecycle_state: blocked.lifecycleState,
    reason: blocked.lifecycleReason,
  };
}
