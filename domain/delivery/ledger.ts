import type { Pool, PoolClient } from 'pg';
import { GroupCommit } from '../events/group-commit';
import type { DeliveryClaims } from './tracking-token';

/**
 * The delivery ledger (PostgreSQL `delivery_ledger`) and the shared spend store
 * (`campaign_spend`), written together: a tracker answers only after its event
 * is committed here, so an answered impression is never lost, and the ledger's
 * primary key (`<auction_id>:<event_type>`) makes a repeat count nothing.
 *
 * Budgets: a charge is made only while the campaign's spend is below its
 * lifetime limit, under the campaign's spend-row lock, so across any number of
 * api processes spend exceeds the limit by at most the one charge that crossed
 * it. Once spend is exhausted, later deliveries are recorded with a charge of 0.
 *
 * Writes go through a group commit: one transaction for many tracker requests.
 */
export type DeliveryEventType = 'impression' | 'click' | 'thumbs_up' | 'thumbs_down';

export interface TrackedDelivery {
  type: DeliveryEventType;
  claims: DeliveryClaims;
  time: Date;
}

export interface DeliveryOutcome {
  /** False for a repeat (this auction's event of this type was recorded before). */
  recorded: boolean;
  chargedMicros: number;
}

/** What a feedback event sends on to the DSP's feedback_url (domain/delivery/dsp-callbacks.ts). */
export interface FeedbackCallback { dspId: string; url: string; body: string }

export interface LedgerOptions {
  /** Campaigns whose budget a flush just exhausted (after its commit): the lifecycle workflow hears of it. */
  onBudgetExhausted?: (campaignIds: string[]) => void;
  /** The feedback forwarding a recorded thumbs up/down owes its DSP, if any. */
  feedbackCallback?: (delivery: TrackedDelivery) => FeedbackCallback | null;
  maxBatch?: number;
  maxConcurrentFlushes?: number;
}

/** Feedback of either direction shares one dedupe key: the first thumbs per auction counts. */
const dedupeType = (type: DeliveryEventType) => (type === 'thumbs_up' || type === 'thumbs_down' ? 'feedback' : type);
export const deliveryEventId = (auctionId: string, type: DeliveryEventType) => `${auctionId}:${dedupeType(type)}`;

/** What one delivery costs its campaign: CPM impressions pay price/1000, CPC clicks their CPC; everything else nothing. */
export function deliveryPriceMicros(type: DeliveryEventType, claims: DeliveryClaims): number {
  if (type === 'impression') return Math.round(claims.price_micros / 1000);
  if (type === 'click' && claims.pricing_model === 'cpc') return claims.cpc_micros ?? 0;
  return 0;
}

const chargeable = (type: DeliveryEventType, claims: DeliveryClaims) =>
  claims.source === 'inhouse' && claims.campaign_id !== undefined
  && ((type === 'impression' && claims.pricing_model !== 'cpc') || (type === 'click' && claims.pricing_model === 'cpc'));

export function createDeliveryLedger(pool: Pool, options: LedgerOptions = {}) {
  const writer = new GroupCommit<TrackedDelivery, DeliveryOutcome>(
    (batch) => recordDeliveries(pool, batch, options),
    { maxBatch: options.maxBatch ?? 500, maxConcurrentFlushes: options.maxConcurrentFlushes ?? 2 },
  );
  return { record: (delivery: TrackedDelivery) => writer.submit(delivery) };
}
export type DeliveryLedgerWriter = ReturnType<typeof createDeliveryLedger>;

interface FreshDelivery { delivery: TrackedDelivery; eventId: string; price: number; charged: number; outcomeIndex: number }
interface SpendState { spent: bigint; limit: bigint; impressions: number; clicks: number; exhaustedNow: boolean }

/** One transaction for a batch of tracker events; returns one outcome per event, in order. */
export async function recordDeliveries(pool: Pool, batch: TrackedDelivery[], options: LedgerOptions = {}): Promise<DeliveryOutcome[]> {
  const client = await pool.connect();
  let exhausted: string[] = [];
  try {
    await client.query('BEGIN');
    const ids = batch.map((d) => deliveryEventId(d.claims.auction_id, d.type));
    const campaignIds = [...new Set(batch.flatMap((d) => (d.claims.source === 'inhouse' && d.claims.campaign_id ? [d.claims.campaign_id] : [])))].sort();
    // Lock the spend rows first (in id order: no deadlocks): every writer of a
    // campaign's events holds its row, so the existence check below is exact.
    const spend = await lockSpendRows(client, campaignIds);
    const existing = new Set(
      (await client.query<{ event_id: string }>('SELECT event_id FROM delivery_ledger WHERE event_id = ANY($1::text[])', [ids])).rows.map((r) => r.event_id),
    );

    const outcomes: DeliveryOutcome[] = [];
    const fresh: FreshDelivery[] = [];
    for (const [i, delivery] of batch.entries()) {
      const eventId = ids[i];
      if (existing.has(eventId)) { outcomes.push({ recorded: false, chargedMicros: 0 }); continue; }
      existing.add(eventId); // a second copy in this batch is a repeat too
      const price = deliveryPriceMicros(delivery.type, delivery.claims);
      let charged = 0;
      const state = delivery.claims.campaign_id ? spend.get(delivery.claims.campaign_id) : undefined;
      if (state) {
        if (chargeable(delivery.type, delivery.claims) && state.spent < state.limit) {
          charged = price;
          state.spent += BigInt(price);
          if (state.spent >= state.limit) state.exhaustedNow = true;
        }
        if (delivery.type === 'impression') state.impressions += 1;
        if (delivery.type === 'click') state.clicks += 1;
      }
      fresh.push({ delivery, eventId, price, charged, outcomeIndex: outcomes.length });
      outcomes.push({ recorded: true, chargedMicros: charged });
    }

    // DSP events take no spend lock: ON CONFLICT settles a race between two processes.
    const inserted = await insertLedgerRows(client, fresh);
    for (const f of fresh) if (!inserted.has(f.eventId)) outcomes[f.outcomeIndex] = { recorded: false, chargedMicros: 0 };
    await updateSpendRows(client, spend);
    exhausted = [...spend.entries()].filter(([, s]) => s.exhaustedNow).map(([id]) => id);
    // The auction's index drops exhausted campaigns on this notification (auction/catalog.ts).
    if (exhausted.length > 0) await client.query(`SELECT pg_notify('auction_index', 'campaign_spend')`);
    await insertFeedbackCallbacks(client, fresh.filter((f) => inserted.has(f.eventId)).map((f) => f.delivery), options);
    await client.query('COMMIT');
    if (exhausted.length > 0) options.onBudgetExhausted?.(exhausted);
    return outcomes;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

async function lockSpendRows(client: PoolClient, campaignIds: string[]): Promise<Map<string, SpendState>> {
  const spend = new Map<string, SpendState>();
  if (campaignIds.length === 0) return spend;
  // Creates missing rows and locks every row (DO UPDATE locks, DO NOTHING would not); a deleted campaign has none.
  const { rows } = await client.query<{ campaign_id: string; spent_micros: string; limit_micros: string }>(
    `WITH locked AS (
       INSERT INTO campaign_spend (campaign_id)
       SELECT id FROM campaigns WHERE id = ANY($1::uuid[]) ORDER BY id
       ON CONFLICT (campaign_id) DO UPDATE SET campaign_id = EXCLUDED.campaign_id
       RETURNING campaign_id, spent_micros)
     SELECT l.campaign_id, l.spent_micros::text, c.lifetime_spend_limit_micros::text AS limit_micros
     FROM locked l JOIN campaigns c ON c.id = l.campaign_id`,
    [campaignIds],
  );
  for (const r of rows) {
    spend.set(r.campaign_id, { spent: BigInt(r.spent_micros), limit: BigInt(r.limit_micros), impressions: 0, clicks: 0, exhaustedNow: false });
  }
  return spend;
}

async function updateSpendRows(client: PoolClient, spend: Map<string, SpendState>): Promise<void> {
  const changed = [...spend.entries()].filter(([, s]) => s.impressions > 0 || s.clicks > 0);
  if (changed.length === 0) return;
  await client.query(
    `UPDATE campaign_spend s
        SET spent_micros = v.spent, impressions = s.impressions + v.impressions, clicks = s.clicks + v.clicks,
            exhausted_at = CASE WHEN v.exhausted AND s.exhausted_at IS NULL THEN now() ELSE s.exhausted_at END,
            updated_at = now()
       FROM unnest($1::uuid[], $2::bigint[], $3::bigint[], $4::bigint[], $5::boolean[]) AS v(id, spent, impressions, clicks, exhausted)
      WHERE s.campaign_id = v.id`,
    [
      changed.map(([id]) => id),
      changed.map(([, s]) => s.spent.toString()),
      changed.map(([, s]) => s.impressions),
      changed.map(([, s]) => s.clicks),
      changed.map(([, s]) => s.spent >= s.limit),
    ],
  );
}

const LEDGER_COLUMNS = [
  'event_id', 'event_type', 'event_time', 'auction_id', 'source', 'organization_id', 'ad_account_id', 'campaign_id',
  'ad_group_id', 'ad_id', 'dsp_id', 'bid_id', 'publisher_id', 'country', 'device', 'detail', 'price_micros', 'charged_micros',
] as const;
const LEDGER_TYPES = ['text', 'text', 'timestamp', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'bigint', 'bigint'];

/** Inserts the fresh events (arrays unnested server-side: one statement); returns the event ids it stored. */
async function insertLedgerRows(client: PoolClient, fresh: FreshDelivery[]): Promise<Set<string>> {
  if (fresh.length === 0) return new Set();
  const columns: unknown[][] = LEDGER_COLUMNS.map(() => []);
  for (const { delivery: { type, claims: c, time }, eventId, price, charged } of fresh) {
    const row = [
      eventId, type, time.toISOString().replace('Z', ''), c.auction_id, c.source, c.organization_id ?? '', c.ad_account_id ?? '',
      c.campaign_id ?? '', c.ad_group_id ?? '', c.ad_id ?? '', c.dsp_id ?? '', c.bid_id ?? '', c.publisher_id, c.country ?? '',
      c.device ?? '', c.tile !== undefined && type === 'click' ? `tile:${c.tile}` : '', String(price), String(charged),
    ];
    row.forEach((value, i) => columns[i].push(value));
  }
  const { rows } = await client.query<{ event_id: string }>(
    `INSERT INTO delivery_ledger (${LEDGER_COLUMNS.join(', ')})
     SELECT * FROM unnest(${LEDGER_TYPES.map((t, i) => `$${i + 1}::${t}[]`).join(', ')})
     ON CONFLICT (event_id) DO NOTHING RETURNING event_id`,
    columns,
  );
  return new Set(rows.map((r) => r.event_id));
}

async function insertFeedbackCallbacks(client: PoolClient, recorded: TrackedDelivery[], options: LedgerOptions): Promise<void> {
  if (!options.feedbackCallback) return;
  const calls = recorded.flatMap((d) => {
    const call = d.type === 'thumbs_up' || d.type === 'thumbs_down' ? options.feedbackCallback!(d) : null;
    return call ? [call] : [];
  });
  if (calls.length === 0) return;
  await client.query(
    'INSERT INTO dsp_callbacks (dsp_id, url, body) SELECT * FROM unnest($1::text[], $2::text[], $3::text[])',
    [calls.map((c) => c.dspId), calls.map((c) => c.url), calls.map((c) => c.body)],
  );
}
