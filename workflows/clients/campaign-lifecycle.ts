import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy, WorkflowNotFoundError, type Client, type WorkflowHandle } from '@temporalio/client';
import { temporalConfig } from '../../temporal.config';
import type { CampaignRow } from '../../domain/campaigns/rows';
import type { CampaignSearch } from '../../domain/campaigns/search';
import { campaignSearchAttributes } from '../search-attributes';
import {
  blockSignal,
  budgetExhaustedSignal,
  campaignArchivedSignal,
  campaignLifecycle,
  campaignLifecycleWorkflowId,
  scheduleChangedSignal,
} from '../campaign-lifecycle';

/**
 * Typed start and signal helpers of a campaign's lifecycle workflow
 * (workflows/campaign-lifecycle.ts), for the use cases and the trackers. The
 * review's approval starts it; startCampaignLifecycle starts it for campaigns
 * approved before it existed. A signal to a campaign with no running workflow
 * (not approved yet, already ended) is no error: it answers false.
 */

/**
 * Idempotent: a running (or already finished) workflow is left alone; only a failed one is started again.
 * `search`: the campaign's search attributes (docs/operations.md, Temporal).
 */
export async function startCampaignLifecycle(temporal: Client, campaignId: string, search?: CampaignSearch): Promise<{ started: boolean }> {
  try {
    await temporal.workflow.start(campaignLifecycle, {
      taskQueue: temporalConfig.taskQueues.main,
      workflowId: campaignLifecycleWorkflowId(campaignId),
      args: [{ campaignId }],
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
      ...(search ? { searchAttributes: campaignSearchAttributes(search) } : {}),
    });
    return { started: true };
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return { started: false };
    throw err;
  }
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
export const signalBudgetExhausted = (temporal: Client, campaignId: string) => signal(temporal, campaignId, (handle) => handle.signal(budgetExhaustedSignal));

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

/** The campaign's start_time, end_time or budget changed: timers re-armed, budget re-checked. */
export const signalScheduleChanged = (temporal: Client, campaign: Pick<CampaignRow, 'id' | 'startTime' | 'endTime'>) =>
  signal(temporal, campaign.id, (handle) =>
    handle.signal(scheduleChangedSignal, {
      startTime: campaign.startTime.toISOString(),
      endTime: campaign.endTime?.toISOString() ?? null,
    }),
  );

/** The advertiser archived the campaign: its workflow ends. */
export const signalCampaignArchived = (temporal: Client, campaignId: string) => signal(temporal, campaignId, (handle) => handle.signal(campaignArchivedSignal));

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
    await Promise.race([
      logged,
      new Promise((resolve) => {
        timer = setTimeout(resolve, waitMs);
      }),
    ]);
    clearTimeout(timer);
  };
  return {
    scheduleChanged: (campaign: Pick<CampaignRow, 'id' | 'startTime' | 'endTime'>) =>
      quietly(`schedule change of ${campaign.id}`, signalScheduleChanged(temporal, campaign)),
    archived: (campaignId: string) => quietly(`archive of ${campaignId}`, signalCampaignArchived(temporal, campaignId)),
  };
}

/** A reviewer blocked the campaign (already recorded): the workflow records it too, and ends. */
export const signalBlock = (temporal: Client, campaignId: string, reason: string) =>
  signal(temporal, campaignId, (handle) => handle.signal(blockSignal, { reason }));
