import {
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  log,
  makeContinueAsNewFunc,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import { campaignAttributesOf } from './search-attributes';
import type { LifecycleSnapshot } from '../domain/campaigns/lifecycle';

// A campaign lives for months: retry its database work for as long as it takes.
const { campaignLifecycleSnapshot, completeCampaignIfEnded, completeCampaignIfBudgetExhausted, recordCampaignBlock } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumInterval: '1 minute' },
});

export interface CampaignLifecycleInput {
  campaignId: string;
  /** Carried over continue-as-new: whether serving had already started. */
  serving?: boolean;
  /** Continue as new past this many history events (default HISTORY_LIMIT; tests lower it). */
  historyLimit?: number;
}

/** New start_time / end_time (ISO 8601, end null = none), sent after a campaign update. */
export interface ScheduleChange {
  startTime: string;
  endTime: string | null;
}

export interface LifecycleOutcome {
  state: 'completed' | 'blocked' | 'archived' | 'deleted';
  reason: string | null;
}

export interface LifecycleView {
  phase: 'scheduled' | 'serving';
  startTime: string | null;
  endTime: string | null;
  /** How many budget re-checks this run has done (each budgetExhausted or scheduleChanged signal asks for one). */
  budgetChecks: number;
}

/** A charge spent the budget (the trackers): re-checked against the spend store before completing. */
export const budgetExhaustedSignal = defineSignal('budgetExhausted');
/** A reviewer stopped the campaign (`adctl review block`): blocked at once. */
export const blockSignal = defineSignal<[{ reason: string }]>('block');
/** start_time, end_time or the budget changed (the /v1 campaign update): timers re-armed, budget re-checked. */
export const scheduleChangedSignal = defineSignal<[ScheduleChange]>('scheduleChanged');
/** The advertiser archived the campaign: nothing is left to do. */
export const campaignArchivedSignal = defineSignal('archived');
export const lifecycleQuery = defineQuery<LifecycleView>('lifecycle');

/**
 * Even with no signal the workflow re-reads its campaign this often, so a
 * signal lost while Temporal was unreachable (updates are committed first)
 * only delays, never loses, the change.
 */
const RESYNC_MS = 6 * 60 * 60 * 1000;
/** Start afresh (continue-as-new) past this many history events. */
const HISTORY_LIMIT = 2000;

/**
 * One per approved campaign (started by the review's approval). Serving
 * itself is gated by the auction's index on the clock; this workflow makes
 * the end explicit: the campaign becomes completed at end_time or when its
 * budget is spent (reason `ended` / `budget_exhausted`), blocked on a
 * reviewer's signal, and the workflow ends there or when the campaign is
 * archived. Every decision is re-checked against the database by the
 * activity that writes it, so a late or out-of-order signal cannot end a
 * campaign early.
 */
export async function campaignLifecycle(input: CampaignLifecycleInput): Promise<LifecycleOutcome> {
  const { campaignId, historyLimit = HISTORY_LIMIT } = input;
  let snapshot: LifecycleSnapshot | undefined;
  let serving = input.serving ?? false;
  let blockReason: string | undefined;
  let archived = false;
  let budgetCheckDue = false;
  let rescheduled = false;
  let budgetChecks = 0;

  // Handlers before the first await: signals sent with or right after the start are kept.
  setHandler(blockSignal, (signal) => {
    blockReason ??= signal?.reason || 'blocked by a reviewer';
  });
  setHandler(campaignArchivedSignal, () => {
    archived = true;
  });
  setHandler(budgetExhaustedSignal, () => {
    budgetCheckDue = true;
  });
  setHandler(scheduleChangedSignal, (change) => {
    if (snapshot) snapshot = { ...snapshot, startTime: change.startTime, endTime: change.endTime };
    rescheduled = true;
    budgetCheckDue = true; // a lowered budget may already be spent
  });
  setHandler(lifecycleQuery, () => ({
    phase: serving ? 'serving' : 'scheduled',
    startTime: snapshot?.startTime ?? null,
    endTime: snapshot?.endTime ?? null,
    budgetChecks,
  }));

  snapshot = await campaignLifecycleSnapshot(campaignId);
  for (;;) {
    if (snapshot.over) return { state: snapshot.over, reason: snapshot.reason };
    if (blockReason !== undefined) {
      snapshot = await recordCampaignBlock(campaignId, blockReason);
      continue;
    }
    if (archived) {
      snapshot = await campaignLifecycleSnapshot(campaignId);
      if (!snapshot.over) archived = false; // not archived after all (a signal sent by hand)
      continue;
    }
    if (budgetCheckDue) {
      budgetCheckDue = false;
      snapshot = await completeCampaignIfBudgetExhausted(campaignId);
      budgetChecks += 1;
      continue;
    }

    const now = Date.now();
    const start = Date.parse(snapshot.startTime);
    const end = snapshot.endTime === null ? null : Date.parse(snapshot.endTime);
    if (serving !== start <= now) {
      serving = start <= now;
      log.info(serving ? 'campaign serving started' : 'campaign start moved later', { campaignId, startTime: snapshot.startTime });
    }
    if (end !== null && end <= now) {
      // Completes only if the row's end_time agrees; else the fresh snapshot re-arms the timer.
      snapshot = await completeCampaignIfEnded(campaignId, now);
      continue;
    }

    const info = workflowInfo();
    if (info.continueAsNewSuggested || info.historyLength > historyLimit) {
      // The next run keeps the campaign's search attributes (docs/operations.md, Temporal), said explicitly.
      const carried = campaignAttributesOf(info.searchAttributes);
      const next =
        Object.keys(carried).length > 0
          ? makeContinueAsNewFunc<typeof campaignLifecycle>({ searchAttributes: carried })
          : continueAsNew<typeof campaignLifecycle>;
      await next({ campaignId, serving, historyLimit: input.historyLimit });
    }

    const next = serving ? end : start;
    const wait = next === null ? RESYNC_MS : Math.min(next - now, RESYNC_MS);
    rescheduled = false;
    const signalled = await condition(() => blockReason !== undefined || archived || budgetCheckDue || rescheduled, wait);
    if (!signalled) snapshot = await campaignLifecycleSnapshot(campaignId);
  }
}

export const campaignLifecycleWorkflowId = (campaignId: string) => `campaign-lifecycle-${campaignId}`;
