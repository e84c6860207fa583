import type { ClickHouseClient } from '@clickhouse/client';
import { identifier, inList, sql } from '../../lib/clickhouse/sql';
import { insertSettingAsideRefused, type RefusedRow } from '../../lib/clickhouse/refused-rows';
import { DELIVERY_TABLES } from './clickhouse-tables';

/**
 * One own-supply delivery row, as the trackers write it into `delivery_events`
 * (see clickhouse-tables.ts). A row may carry any mix of counts: an
 * impression row is `{ impressions: 1, spend_micros: price }`, a click row
 * `{ clicks: 1 }`. `event_id` makes a row idempotent: sending it again (a
 * retried batch) never counts twice.
 */
export interface DeliveryRow {
  event_id: string;
  /** What happened: `impression`, `click` (or any tracker event that carries counts). */
  event_type: string;
  /** When it happened; stored to the second, reported by UTC hour. */
  event_time: Date;
  organization_id: string;
  ad_account_id: string;
  campaign_id: string;
  ad_group_id: string;
  ad_id: string;
  /** `own` for everything our trackers see; `external` for third-party supply reported per event. */
  source: 'own' | 'external';
  /** ISO 3166-1 alpha-2, uppercase; `''` when unknown. */
  country: string;
  /** Device type (`mobile`, `desktop`, `tablet`, ...); `''` when unknown. */
  device: string;
  publisher_id: string;
  auction_id: string;
  impressions: number;
  clicks: number;
  spend_micros: bigint | number;
  /** Why the event is invalid traffic (then every count is 0); '' or absent when valid. */
  invalid_reason?: string;
}

/** Rows per INSERT: large batches are what ClickHouse likes (one part per insert). */
export const DELIVERY_BATCH_SIZE = 50_000;

/** The JSONEachRow shape of a row (DateTime as Unix seconds, Int64 as a string). */
function toStored(row: DeliveryRow) {
  if (!Number.isInteger(row.impressions) || !Number.isInteger(row.clicks)) throw new Error(`delivery row ${row.event_id}: counts must be integers`);
  if (typeof row.spend_micros === 'number' && !Number.isSafeInteger(row.spend_micros))
    throw new Error(`delivery row ${row.event_id}: spend_micros must be an integer`);
  return {
    ...row,
    event_time: Math.floor(row.event_time.getTime() / 1000),
    spend_micros: String(row.spend_micros),
  };
}

/** Ids per existence lookup: the SQL stays well under ClickHouse's max_query_size (256 KiB). */
const LOOKUP_CHUNK = 4000;

/** A row that is idempotent on `event_id`, looked up within its `scope` column's value (the table's first sort key). */
export interface IdempotentRow {
  event_id: string;
  event_time: Date;
}

/**
 * The event ids of `rows` already stored in `table` (a retried batch), looked
 * up within the rows' own scope values (`scopeColumn`) and times, so the
 * lookup reads only the parts that can hold them.
 */
export async function storedEventIds<R extends IdempotentRow>(
  ch: ClickHouseClient,
  database: string,
  table: string,
  scopeColumn: keyof R & string,
  rows: R[],
): Promise<Set<string>> {
  const stored = new Set<string>();
  for (let i = 0; i < rows.length; i += LOOKUP_CHUNK) {
    const chunk = rows.slice(i, i + LOOKUP_CHUNK);
    const scopes = [...new Set(chunk.map((r) => String(r[scopeColumn])))];
    const times = chunk.map((r) => Math.floor(r.event_time.getTime() / 1000));
    const from = new Date(Math.min(...times) * 1000);
    const to = new Date(Math.max(...times) * 1000);
    const result = await ch.query({
      query: `SELECT event_id FROM ${identifier(database)}.${identifier(table)}
        WHERE ${identifier(scopeColumn)} IN ${inList(scopes)} AND ${sql`event_time >= ${from} AND event_time <= ${to}`}
          AND event_id IN ${inList(chunk.map((r) => r.event_id))}`,
      format: 'JSONEachRow',
    });
    for (const r of await result.json<{ event_id: string }>()) stored.add(r.event_id);
  }
  return stored;
}

/**
 * Whether a write first looks up which of its rows ClickHouse holds already.
 * Always, unless the caller knows none can be there (the ledger's export
 * does: jobs/delivery-exporter.ts); the lookup is one more query per insert, with every id in it.
 */
export interface InsertOptions<R> {
  lookUpStored?: boolean;
  /**
   * Where rows ClickHouse refuses go (a mover's dead letters), while the rest
   * are stored; without it a refusal fails the call.
   */
  refused?: RefusedRow<R>[];
}

/** One insert of `values` into `table`, setting refused rows aside into `refused` when given. */
async function insertRows<R, V>(ch: ClickHouseClient, table: string, rows: R[], toValue: (row: R) => V, refused?: RefusedRow<R>[]): Promise<number> {
  const send = (part: readonly R[]) => ch.insert({ table, values: part.map(toValue), format: 'JSONEachRow' }).then(() => undefined);
  if (!refused) {
    await send(rows);
    return rows.length;
  }
  const setAside = await insertSettingAsideRefused(rows, send);
  refused.push(...setAside);
  return rows.length - setAside.length;
}

/**
 * Writes delivery rows in batches of DELIVERY_BATCH_SIZE. Idempotent on
 * `event_id`: duplicates within the call and ids already stored are skipped,
 * so the hourly rollups (fed by materialized views on every insert) never
 * count an event twice. One writer per event id at a time is assumed (a
 * tracker retrying its own batch); ReplacingMergeTree still folds the raw
 * table if two writers race. Returns the number of rows written.
 */
export async function insertDeliveryRows(
  ch: ClickHouseClient,
  database: string,
  rows: DeliveryRow[],
  options: InsertOptions<DeliveryRow> = {},
): Promise<number> {
  let written = 0;
  for (let i = 0; i < rows.length; i += DELIVERY_BATCH_SIZE) {
    const batch = new Map<string, DeliveryRow>();
    for (const row of rows.slice(i, i + DELIVERY_BATCH_SIZE)) if (!batch.has(row.event_id)) batch.set(row.event_id, row);
    const stored =
      options.lookUpStored === false ? new Set<string>() : await storedEventIds(ch, database, DELIVERY_TABLES.rows, 'organization_id', [...batch.values()]);
    const fresh = [...batch.values()].filter((row) => !stored.has(row.event_id));
    if (fresh.length === 0) continue;
    written += await insertRows(ch, `${identifier(database)}.${DELIVERY_TABLES.rows}`, fresh, toStored, options.refused);
  }
  return written;
}

/** One impression or click of an ad a DSP won on our supply (`dsp_delivery_events`). */
export interface DspDeliveryRow {
  event_id: string;
  event_type: string;
  event_time: Date;
  auction_id: string;
  dsp_id: string;
  bid_id: string;
  publisher_id: string;
  country: string;
  device: string;
  impressions: number;
  clicks: number;
  /** What the DSP owes for it (its clearing price per impression). */
  revenue_micros: number;
  /** Why the event is invalid traffic (then every count is 0); '' or absent when valid. */
  invalid_reason?: string;
}

/** Writes DSP delivery rows, idempotent on `event_id` like insertDeliveryRows. Returns the number written. */
export async function insertDspDeliveryRows(
  ch: ClickHouseClient,
  database: string,
  rows: DspDeliveryRow[],
  options: InsertOptions<DspDeliveryRow> = {},
): Promise<number> {
  const unique = [...new Map(rows.map((r) => [r.event_id, r])).values()];
  if (unique.length === 0) return 0;
  const stored = options.lookUpStored === false ? new Set<string>() : await storedEventIds(ch, database, DELIVERY_TABLES.dspRows, 'dsp_id', unique);
  const fresh = unique.filter((r) => !stored.has(r.event_id));
  if (fresh.length === 0) return 0;
  return insertRows(
    ch,
    `${identifier(database)}.${DELIVERY_TABLES.dspRows}`,
    fresh,
    (r) => ({ ...r, event_time: Math.floor(r.event_time.getTime() / 1000) }),
    options.refused,
  );
}
