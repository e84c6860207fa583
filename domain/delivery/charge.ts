import type { Pool, PoolClient } from 'pg';
import { utcTimestamp } from '../../lib/db';
import type { DeliveryClaims } from './tracking-token';
import { DEFAULT_CPC_MICROS, DEFAULT_CPM_MICROS } from '../money';
import { DEFAULT_BURST_THRESHOLDS, type InvalidTrafficReason } from './invalid-traffic';
import type { DeliveryEventType, DeliveryOutcome, LedgerOptions, TrackedDelivery } from './ledger';

/**
 * Where an impression (or a click) is charged: one ledger flush (ledger.ts batches the
 * trackers' events) is one call of the PostgreSQL function `record_deliveries`, whose body is
 * charge.sql, beside this file. Its rule, whatever the signed token claims:
 *
 * - Chargeable: an in-house event whose ad belongs to its ad group and campaign, whose type is
 *   what the campaign's pricing model pays for (cpm: impressions, cpc: clicks), and whose ad may
 *   serve at the event's time (`serving_block`, domain/serving/eligibility.sql: the rules of
 *   domain/serving/eligibility.ts, budget aside), and that is not invalid traffic
 *   (invalid-traffic.ts: the tracker's reason, or a burst the database counts). DSP events,
 *   feedback and everything else is recorded and charges nothing.
 * - Price: what the token says (deliveryPriceMicros), at most the ad group's max bid (cpm: per
 *   impression, max bid / 1000, cpc: the max bid), DEFAULT_CPM_MICROS / DEFAULT_CPC_MICROS when
 *   it sets none.
 * - Budget: under the campaign's spend-row lock, a charge is at most what is left of the lifetime
 *   limit (the last one is cut to it), so across any number of api processes spend reaches the
 *   limit and never passes it; the flush that reaches it notifies the auctions and returns the
 *   campaign (LedgerOptions.onBudgetExhausted).
 * - Once: the ledger's key (deliveryEventId) makes a repeat record and charge nothing.
 */

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

/**
 * One flush in one round trip: `record_deliveries` locks the batch's spend rows, drops repeats,
 * charges, inserts the ledger rows, adds the spend, queues DSP feedback and notifies the
 * auctions of exhausted budgets, and commits: the spend rows stay locked for one function run
 * and one commit, not for several round trips. On a client inside a transaction the commit is
 * the caller's (tests hold one open to race a flush).
 */
export async function recordDeliveries(pool: Pool | PoolClient, batch: TrackedDelivery[], options: LedgerOptions = {}): Promise<DeliveryOutcome[]> {
  const columns = EVENT_COLUMNS.map(() => [] as unknown[]);
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
  const settings: Record<(typeof SETTINGS)[number], number> = {
    default_cpm_micros: DEFAULT_CPM_MICROS,
    default_cpc_micros: DEFAULT_CPC_MICROS,
    burst_per_user: burst.perUserPerMinute,
    burst_per_network: burst.perNetworkPerMinute,
  };
  const {
    rows: [result],
  } = await pool.query<{ recorded: boolean[]; charged_micros: string[]; exhausted_campaign_ids: string[] | null; invalid_reasons: string[] }>({
    name: 'record-deliveries',
    text: RECORD_DELIVERIES,
    values: [...columns, ...SETTINGS.map((name) => settings[name])],
  });
  const exhausted = result.exhausted_campaign_ids ?? [];
  if (exhausted.length > 0) options.onBudgetExhausted?.(exhausted);
  return result.recorded.map((recorded, i) => ({
    recorded,
    chargedMicros: Number(result.charged_micros[i]),
    invalid: recorded && result.invalid_reasons[i] ? (result.invalid_reasons[i] as InvalidTrafficReason) : undefined,
  }));
}

/** The per-event arrays, in the order of the row above (each `p_<name>`, a text array unless NOT_TEXT says otherwise). */
const EVENT_COLUMNS = [
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
const NOT_TEXT: Partial<Record<(typeof EVENT_COLUMNS)[number], string>> = { event_time: 'timestamp', price_micros: 'bigint' };
/** Then one value each for the whole flush. */
const SETTINGS = ['default_cpm_micros', 'default_cpc_micros', 'burst_per_user', 'burst_per_network'] as const;
const SETTING_TYPES: Record<(typeof SETTINGS)[number], string> = {
  default_cpm_micros: 'bigint',
  default_cpc_micros: 'bigint',
  burst_per_user: 'integer',
  burst_per_network: 'integer',
};

/** `record_deliveries`' input parameters as this file passes them (test/tracking/charge.test.ts checks them against pg_proc). */
export const RECORD_DELIVERIES_PARAMETERS: readonly { name: string; type: string }[] = [
  ...EVENT_COLUMNS.map((column) => ({ name: `p_${column}`, type: `${NOT_TEXT[column] ?? 'text'}[]` })),
  ...SETTINGS.map((setting) => ({ name: `p_${setting}`, type: SETTING_TYPES[setting] })),
];

/**
 * Named: each pooled connection parses and plans the call once, not once per flush
 * (bench/history.md, "tracking": a flush in PostgreSQL).
 */
const RECORD_DELIVERIES = `SELECT * FROM record_deliveries(${RECORD_DELIVERIES_PARAMETERS.map((p, i) => `$${i + 1}::${p.type}`).join(', ')})`;
