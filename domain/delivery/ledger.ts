import type { Pool } from 'pg';
import { GroupCommit } from '../../lib/group-commit';
import type { DeliveryClaims } from './tracking-token';
import { observedFlush, type LedgerObserver } from './metrics';
import type { BurstThresholds, InvalidTrafficReason } from './invalid-traffic';
import { recordDeliveries } from './charge';

/**
 * The delivery ledger (PostgreSQL `delivery_ledger`) and the shared spend store
 * (`campaign_spend`), written together: a tracker answers only after its event
 * is committed here, so an answered impression is never lost, and the ledger's
 * primary key (`<auction_id>:<event_type>`) makes a repeat count nothing.
 *
 * What an event charges is decided by the charge (charge.ts, one call of
 * `record_deliveries` per flush): bounded by the database, not by the token,
 * and by what is left of the budget. Deliveries that charge nothing (repeats
 * aside) are still recorded, with a charge of 0, invalid traffic with its reason.
 *
 * Writes go through a group commit: one transaction for many tracker requests.
 */
export type DeliveryEventType = 'impression' | 'click' | 'thumbs_up' | 'thumbs_down';

/** Why a user gave feedback (optional, a fixed list: no free text, so nothing personal can be stored or forwarded). */
export const FEEDBACK_REASONS = ['not_relevant', 'offensive', 'misleading', 'repetitive', 'other'] as const;
export type FeedbackReason = (typeof FEEDBACK_REASONS)[number];

export interface TrackedDelivery {
  type: DeliveryEventType;
  claims: DeliveryClaims;
  time: Date;
  /** Why the tracker found the request invalid (invalid-traffic.ts judgeTrackedRequest), if it did. */
  invalid?: InvalidTrafficReason | null;
  /** Feedback only: the reason the user picked, if any. */
  reason?: FeedbackReason;
}

export interface DeliveryOutcome {
  /** False for a repeat (this auction's event of this type was recorded before). */
  recorded: boolean;
  chargedMicros: number;
  /** Why a recorded event is invalid traffic (the tracker's reason or `burst`); absent when valid or not recorded. */
  invalid?: InvalidTrafficReason;
}

/** What a feedback event sends on to the DSP's feedback_url (domain/delivery/dsp-callbacks.ts). */
export interface FeedbackCallback {
  dspId: string;
  url: string;
  body: string;
}

export interface LedgerOptions {
  /** Campaigns whose budget a flush just exhausted (after its commit): the lifecycle workflow hears of it. */
  onBudgetExhausted?: (campaignIds: string[]) => void;
  /** The feedback forwarding a recorded thumbs up/down owes its DSP, if any. */
  feedbackCallback?: (delivery: TrackedDelivery) => FeedbackCallback | null;
  maxBatch?: number;
  maxConcurrentFlushes?: number;
  minFlushSpacingMs?: number;
  /** Counts each flush and what it committed (the api's metrics: domain/delivery/metrics.ts). */
  observer?: LedgerObserver;
  /** Impressions a minute per publisher and user key or network beyond which they are a burst. */
  burst?: BurstThresholds;
}

export function createDeliveryLedger(pool: Pool, options: LedgerOptions = {}) {
  const writer = new GroupCommit<TrackedDelivery, DeliveryOutcome>(
    (batch) => observedFlush(options.observer, batch, () => recordDeliveries(pool, batch, options)),
    // One flush at a time: flushes of a hot campaign would only queue on its spend row anyway.
    { maxBatch: options.maxBatch ?? 500, maxConcurrentFlushes: options.maxConcurrentFlushes ?? 1, minSpacingMs: options.minFlushSpacingMs },
  );
  return {
    // A sandbox publisher's ads record nothing: nothing billed, counted in insights or caps, or forwarded to a DSP.
    record: (delivery: TrackedDelivery): Promise<DeliveryOutcome> =>
      delivery.claims.test ? Promise.resolve({ recorded: false, chargedMicros: 0 }) : writer.submit(delivery),
  };
}
export type DeliveryLedgerWriter = ReturnType<typeof createDeliveryLedger>;
