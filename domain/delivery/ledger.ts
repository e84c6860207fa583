import type { Pool, PoolClient } from 'pg';
import { GroupCommit } from '../../lib/group-commit';
import { utcTimestamp } from '../../lib/db';
import type { DeliveryClaims } from './tracking-token';
import { DEFAULT_CPC_MICROS, DEFAULT_CPM_MICROS } from '../money';
import { observedFlush, type LedgerObserver } from './metrics';
import { DEFAULT_BURST_THRESHOLDS, type BurstThresholds, type InvalidTrafficReason } from './invalid-traffic';

/**
 * The delivery ledger (PostgreSQL `delivery_ledger`) and the shared spend store
 * (`campaign_spend`), written together: a tracker answers only after its event
 * is committed here, so an answered impression is never lost, and the ledger's
 * primary key (`<auction_id>:<event_type>`) makes a repeat count nothing.
 *
 * Budgets: under the campaign's spend-row lock, a charge is at most what is
 * left of the lifetime limit (the last one is cut to it), so across any number
 * of api processes spend reaches the limit and never passes it. What a token
 * claims is bounded by the database (prisma/routines/record_deliveries.sql):
 * the ad group's max bid, the campaign's pricing model, and whether the
 * campaign may serve at the event's time. Deliveries that charge nothing are
 * still recorded, with a charge of 0.
 *
 * Invalid traffic (invalid-traffic.ts) is recorded with its reason and charges
 * nothing: the reason the tracker decided, else a burst, which the database
 * counts (one count for every api copy).
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

/** Feedback of either direction shares one dedupe key: the first thumbs per auction counts. */
const dedupeType = (type: DeliveryEventType) => (type === 'thumbs_up' || type === 'thumbs_down' ? 'feedback' : type);
export const deliveryEventId = (auctionId: string, type: DeliveryEventType) => `${auctionId}:${dedupeType(type)}`;

/** The ledger's `detail`: a click's carousel tile, a feedback's reason; '' otherwise. */
function detailOf({ type, claims, reason }: TrackedDelivery): string {
  if (type === 'click' && claims.tile !== undefined) return `tile:${claims.tile}`;
  if ((type === 'thumbs_up' || type === 'thumbs_down') && reason) return `reason:${reason}`;
  return '';
}

/**
 * What the token says one delivery costs: CPM impressions price/1000, CPC clicks
 * their CPC; everything else nothing. Whether it is charged, and how much at
 * most, the ledger decides (record_deliveries).
 */
export function deliveryPriceMicros(type: DeliveryEventType, claims: DeliveryClaims): number {
  if (type === 'impression') return Math.round(claims.price_micros / 1000);
  if (type === 'click' && claims.pricing_model === 'cpc') return claims.cpc_micros ?? 0;
  return 0;
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

/**
 * One flush in one round trip: the `record_deliveries` function (its migration
 * explains the locking) locks the batch's spend rows, drops repeats, charges,
 * inserts the ledger rows, adds the spend, queues DSP feedback and notifies the
 * auctions of exhausted budgets, and commits: the spend rows stay locked for one
 * function run and one commit, not for several round trips. On a client inside
 * a transaction the commit is the caller's (tests hold one open to race a flush).
 */
export async function recordDeliveries(pool: Pool | PoolClient, batch: TrackedDelivery[], options: LedgerOptions = {}): Promise<DeliveryOutcome[]> {
  const columns = LEDGER_COLUMNS.map(() => [] as unknown[]);
  const burst = options.burst ?? DEFAULT_BURST_THRESHOLDS;
  for (const delivery of batch) {
    const { type, claims: c, time } = delivery;
    const callback = (type === 'thumbs_up' || type === 'thumbs_down') && options.feedbackCallback ? options.feedbackCallback(delivery) : null;
    const row = [
      deliveryEventId(c.auction_id, type),
      type,
      utcTimestamp(time),
      c.auction_id,
      c.source,
      c.organization_id ?? '',
      c.ad_account_id ?? '',
      c.campaign_id ?? '',
      c.ad_group_id ?? '',
      c.ad_id ?? '',
      c.dsp_id ?? '',
      c.bid_id ?? '',
      c.publisher_id,
      c.country ?? '',
      c.device ?? '',
      detailOf(delivery),
      String(deliveryPriceMicros(type, c)),
      callback?.dspId ?? null,
      callback?.url ?? null,
      callback?.body ?? null,
      c.user_key ?? '',
      c.chat_key ?? '',
      c.net ?? '',
      delivery.invalid ?? '',
    ];
    row.forEach((value, i) => columns[i].push(value));
  }
  const {
    rows: [result],
  } = await pool.query<{ recorded: boolean[]; charged_micros: string[]; exhausted_campaign_ids: string[] | null; invalid_reasons: string[] }>({
    name: 'record-deliveries',
    text: RECORD_DELIVERIES,
    values: [...columns, DEFAULT_CPM_MICROS, DEFAULT_CPC_MICROS, burst.perUserPerMinute, burst.perNetworkPerMinute],
  });
  const exhausted = result.exhausted_campaign_ids ?? [];
  if (exhausted.length > 0) options.onBudgetExhausted?.(exhausted);
  return result.recorded.map((recorded, i) => ({
    recorded,
    chargedMicros: Number(result.charged_micros[i]),
    invalid: recorded && result.invalid_reasons[i] ? (result.invalid_reasons[i] as InvalidTrafficReason) : undefined,
  }));
}

/** The function's parameters, in order (their types below). */
const LEDGER_COLUMNS = [
  'event_id',
  'event_type',
  'event_time',
  'auction_id',
  'source',
  'organization_id',
  'ad_account_id',
  'campaign_id',
  'ad_group_id',
  'ad_id',
  'dsp_id',
  'bid_id',
  'publisher_id',
  'country',
  'device',
  'detail',
  'price_micros',
  'callback_dsp_id',
  'callback_url',
  'callback_body',
  'user_key',
  'chat_key',
  'net',
  'invalid_reason',
] as const;
/** Every parameter is a text array but these. */
const NOT_TEXT: Partial<Record<(typeof LEDGER_COLUMNS)[number], string>> = { event_time: 'timestamp', price_micros: 'bigint' };
const LEDGER_TYPES = LEDGER_COLUMNS.map((column) => NOT_TEXT[column] ?? 'text');

/**
 * Named: each pooled connection parses and plans the call once, not once per flush
 * (bench/README.md, "tracking": a flush in PostgreSQL).
 */
const RECORD_DELIVERIES = `SELECT * FROM record_deliveries(${LEDGER_TYPES.map((t, i) => `$${i + 1}::${t}[]`).join(', ')}, ${['bigint', 'bigint', 'integer', 'integer'].map((t, i) => `$${LEDGER_TYPES.length + i + 1}::${t}`).join(', ')})`;
