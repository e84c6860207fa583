import type { ClickHouseClient } from '@clickhouse/client';
import type { Pool, PoolClient } from 'pg';
import { inClientTransaction, withSessionLock, type Db } from '../lib/db';
import type { RefusedRow } from '../lib/clickhouse/refused-rows';
import { deadInsertsSettled } from '../lib/clickhouse/running-inserts';
import { deadLettersOf, recordDeadLetters, type DeadLetter } from '../domain/dead-letters/store';
import { heldRows, holdRows, releaseHeld, verifiedRevenue } from '../domain/delivery/dsp-revenue';
import { DELIVERY_TABLES } from '../domain/delivery/clickhouse-tables';
import { insertDeliveryRows, insertDspDeliveryRows, type DeliveryRow, type DspDeliveryRow } from '../domain/delivery/rows';

/**
 * Moves committed ledger rows (domain/delivery/ledger.ts) into ClickHouse in
 * batches, off the request path (the worker's delivery-export job,
 * jobs/delivery-export.ts, runs it), by a cursor: rows are never touched after
 * their insert (the migration 20261124010000 says why).
 *
 * Order and completeness: each row carries the id of the transaction that
 * inserted it; a batch is the rows after the cursor (txid, seq), in that order,
 * whose transaction ended before every transaction still running
 * (`txid < pg_snapshot_xmin(...)`). Nothing can commit later among rows already
 * passed, so the cursor never skips one. A long transaction anywhere in the
 * cluster only delays the export until it ends.
 *
 * Exactly once: before sending, the batch's last row is recorded as pending;
 * after ClickHouse took it, the cursor moves there. A process killed between the
 * two leaves the mark, and whoever exports next waits for that exporter's insert
 * if ClickHouse still runs it (lib/clickhouse/running-inserts.ts), then looks up
 * which of those rows ClickHouse holds already (domain/delivery/rows.ts) instead of sending them twice. Without a
 * mark no lookup is needed: ClickHouse cannot hold a row the cursor has not
 * reached. One exporter at a time (a session advisory lock): the others skip
 * their turn.
 *
 * A row ClickHouse refuses is set aside as a dead letter (domain/dead-letters)
 * in the transaction that moves the cursor past it; the rest of its batch goes on.
 */
interface LedgerRow {
  event_id: string;
  event_type: string;
  event_ms: string;
  auction_id: string;
  source: string;
  organization_id: string;
  ad_account_id: string;
  campaign_id: string;
  ad_group_id: string;
  ad_id: string;
  dsp_id: string;
  bid_id: string;
  publisher_id: string;
  country: string;
  device: string;
  price_micros: string;
  charged_micros: string;
  invalid_reason: string;
}

/** An invalid event (domain/delivery/invalid-traffic.ts) counts nothing: it is in invalid_traffic_hourly by its reason. */
const counts = (r: LedgerRow) =>
  r.invalid_reason ? { impressions: 0, clicks: 0 } : { impressions: r.event_type === 'impression' ? 1 : 0, clicks: r.event_type === 'click' ? 1 : 0 };

/** What every delivery row says of its event, whoever served it: which, when, where and in which auction. */
const eventOf = (r: LedgerRow) => ({
  event_id: r.event_id,
  event_type: r.event_type,
  event_time: new Date(Number(r.event_ms)),
  auction_id: r.auction_id,
  publisher_id: r.publisher_id,
  country: r.country,
  device: r.device,
  ...counts(r),
  invalid_reason: r.invalid_reason,
});

/** An in-house delivery as insights count it: impressions, clicks and the spend actually charged. */
function ownRow(r: LedgerRow): DeliveryRow {
  return {
    ...eventOf(r),
    organization_id: r.organization_id,
    ad_account_id: r.ad_account_id,
    campaign_id: r.campaign_id,
    ad_group_id: r.ad_group_id,
    ad_id: r.ad_id,
    source: 'own',
    spend_micros: BigInt(r.charged_micros),
  };
}

/** A DSP delivery: what the DSP owes is verified against the auction log (domain/delivery/dsp-revenue.ts) for impressions. */
function dspRow(r: LedgerRow, revenue: Map<string, number | undefined>): DspDeliveryRow {
  return {
    ...eventOf(r),
    dsp_id: r.dsp_id,
    bid_id: r.bid_id,
    revenue_micros: r.event_type === 'impression' && !r.invalid_reason ? (revenue.get(r.event_id) ?? 0) : 0,
  };
}

/** The advisory lock key of the export (any constant unique to it). */
export const EXPORT_LOCK = 0x6c656467; // 'ledg'

/** Ledger rows `l` after the export cursor `c`. */
const AFTER_CURSOR = 'c.id = 1 AND (l.txid, l.seq) > (c.txid, c.seq)';

export interface ExportOptions {
  /** How far before an impression its auction can be (the view token's lifetime). */
  viewTokenTtlSeconds: number;
  /** How long a DSP impression waits for its auction's record before it is exported with no revenue. */
  revenueGraceSeconds: number;
  /** Liveness for the host while a recovering export waits for a dead exporter's insert (a Temporal activity's heartbeat). */
  heartbeat?: () => void;
}

/** Runs `work` holding the export's session advisory lock, or returns 0 when another exporter has the turn. */
async function withExportLock(pool: Pool, work: (client: PoolClient) => Promise<number>): Promise<number> {
  const turn = await withSessionLock(pool, EXPORT_LOCK, work);
  return turn.locked ? turn.value : 0;
}

/**
 * Sends ledger rows to ClickHouse (DSP impressions priced by `revenue`; those
 * still waiting for it left out), setting refused rows aside. Returns the dead letters.
 */
async function sendRows(
  ch: ClickHouseClient,
  database: string,
  rows: LedgerRow[],
  revenue: Map<string, number | undefined>,
  lookUpStored: boolean,
): Promise<DeadLetter[]> {
  const refusedOwn: RefusedRow<DeliveryRow>[] = [];
  const refusedDsp: RefusedRow<DspDeliveryRow>[] = [];
  await insertDeliveryRows(ch, database, rows.filter((r) => r.source === 'inhouse').map(ownRow), { lookUpStored, refused: refusedOwn });
  const dsp = rows.filter((r) => r.source === 'dsp' && !(r.event_type === 'impression' && revenue.get(r.event_id) === undefined));
  await insertDspDeliveryRows(
    ch,
    database,
    dsp.map((r) => dspRow(r, revenue)),
    { lookUpStored, refused: refusedDsp },
  );
  return [...deadLettersOf(DELIVERY_TABLES.rows, refusedOwn, (r) => r.event_id), ...deadLettersOf(DELIVERY_TABLES.dspRows, refusedDsp, (r) => r.event_id)];
}

/** The delivery tables as their inserts name them (domain/delivery/rows.ts): what a recovering exporter waits on. */
const deliveryInsertTargets = (database: string) => [`${database}.${DELIVERY_TABLES.rows}`, `${database}.${DELIVERY_TABLES.dspRows}`];

const dspImpressions = (rows: LedgerRow[]) => rows.filter((r) => r.source === 'dsp' && r.event_type === 'impression');

/**
 * The next `limit` ledger rows after `cursor`, in (txid, seq) order: only rows whose transaction has
 * ended for good, since every later commit sorts after them. The cursor goes in as constants, so that
 * the (txid, seq) index finds where to start. The order names the table's columns: bare `txid, seq`
 * would be the text output columns of the same names, which sort '100' before '99', so the cursor
 * would pass rows never sent, or send rows twice.
 */
export async function ledgerRowsAfter(client: PoolClient, cursor: { txid: string; seq: string }, limit: number) {
  const { rows } = await client.query<LedgerRow & { txid: string; seq: string }>(
    `SELECT event_id, event_type, (extract(epoch FROM event_time) * 1000)::bigint::text AS event_ms, auction_id, source, organization_id, ad_account_id,
            campaign_id, ad_group_id, ad_id, dsp_id, bid_id, publisher_id, country, device, price_micros::text, charged_micros::text, invalid_reason,
            txid::text, seq::text
       FROM delivery_ledger l
      WHERE (l.txid, l.seq) > ($1::xid8, $2::bigint) AND l.txid < pg_snapshot_xmin(pg_current_snapshot())
      ORDER BY l.txid, l.seq LIMIT $3`,
    [cursor.txid, cursor.seq, limit],
  );
  return rows;
}

/** Exports up to `limit` ledger rows after the cursor; returns how many it passed (0 when another exporter has the turn). */
export function exportLedgerBatch(pool: Pool, ch: ClickHouseClient, database: string, limit: number, opts: ExportOptions): Promise<number> {
  return withExportLock(pool, async (client) => {
    const {
      rows: [cursor],
    } = await client.query<{ txid: string; seq: string; pending: boolean }>(
      'SELECT txid::text, seq::text, pending_txid IS NOT NULL AS pending FROM delivery_export_cursor WHERE id = 1',
    );
    const rows = await ledgerRowsAfter(client, cursor, limit);
    if (rows.length === 0) return 0;
    const last = rows[rows.length - 1];
    // Mark the batch pending (keeping an older, further mark), so that a crash mid-send leaves word of it.
    await client.query(
      `UPDATE delivery_export_cursor SET
         pending_txid = CASE WHEN pending_txid IS NULL OR (pending_txid, pending_seq) < ($1::xid8, $2::bigint) THEN $1::xid8 ELSE pending_txid END,
         pending_seq = CASE WHEN pending_txid IS NULL OR (pending_txid, pending_seq) < ($1::xid8, $2::bigint) THEN $2::bigint ELSE pending_seq END
       WHERE id = 1`,
      [last.txid, last.seq],
    );
    // A pending mark: an exporter died between its send and its cursor. Its insert may still be running
    // in ClickHouse, invisible to the lookup until it ends; we hold the lock, so any such insert is its.
    if (cursor.pending) await deadInsertsSettled(ch, deliveryInsertTargets(database), { heartbeat: opts.heartbeat });
    const revenue = await verifiedRevenue(ch, database, dspImpressions(rows), { ...opts, graceSeconds: opts.revenueGraceSeconds });
    const deadLetters = await sendRows(ch, database, rows, revenue, cursor.pending);
    // Sent: the cursor moves on, past the rows set aside (dead letters, impressions held for their
    // auction's record) in the same transaction; the mark goes once the cursor has passed it.
    await inClientTransaction(client, async () => {
      await recordDeadLetters(client, deadLetters);
      await holdRows(
        client,
        dspImpressions(rows).filter((r) => revenue.get(r.event_id) === undefined),
      );
      await client.query(
        `UPDATE delivery_export_cursor SET txid = $1::xid8, seq = $2::bigint, updated_at = now(),
           pending_txid = CASE WHEN (pending_txid, pending_seq) > ($1::xid8, $2::bigint) THEN pending_txid END,
           pending_seq = CASE WHEN (pending_txid, pending_seq) > ($1::xid8, $2::bigint) THEN pending_seq END
         WHERE id = 1`,
        [last.txid, last.seq],
      );
    });
    return rows.length;
  });
}

/**
 * Exports the held DSP impressions whose auction record has arrived, or whose
 * wait ran out; returns how many it released. A crash after the insert and
 * before the release only re-sends them: held rows are always looked up first,
 * and the send is marked in flight, so that after a crash the lookup waits for
 * the dead exporter's insert still running in ClickHouse (as the batch export does).
 */
export function exportHeldImpressions(pool: Pool, ch: ClickHouseClient, database: string, opts: ExportOptions): Promise<number> {
  return withExportLock(pool, async (client) => {
    const held = await heldRows<LedgerRow>(client, 1_000);
    if (held.length === 0) return 0;
    const revenue = await verifiedRevenue(ch, database, held, { ...opts, graceSeconds: opts.revenueGraceSeconds });
    const ready = held.filter((r) => revenue.get(r.event_id) !== undefined);
    if (ready.length === 0) return 0;
    // Marked before the send, and returning the mark as it was: found set, a send died after it began.
    const { rows } = await client.query<{ was: boolean }>(
      'UPDATE delivery_export_cursor c SET held_in_flight = true FROM (SELECT held_in_flight AS was FROM delivery_export_cursor WHERE id = 1) old WHERE c.id = 1 RETURNING old.was',
    );
    if (rows[0]?.was) await deadInsertsSettled(ch, deliveryInsertTargets(database), { heartbeat: opts.heartbeat });
    const deadLetters = await sendRows(ch, database, ready, revenue, true);
    await inClientTransaction(client, async () => {
      await recordDeadLetters(client, deadLetters);
      await releaseHeld(
        client,
        ready.map((r) => r.event_id),
      );
      await client.query('UPDATE delivery_export_cursor SET held_in_flight = false WHERE id = 1');
    });
    return ready.length;
  });
}

/** How many of a campaign's ledger rows the export has not passed yet (tests wait for 0). */
export async function awaitingExport(db: Db, campaignId: string): Promise<number> {
  const [{ count }] = await db.$queryRawUnsafe<{ count: bigint }[]>(
    `SELECT count(*) FROM delivery_ledger l, delivery_export_cursor c WHERE ${AFTER_CURSOR} AND l.campaign_id = $1`,
    campaignId,
  );
  return Number(count);
}

/**
 * Ledger rows stay (as the dedupe of replays) until no token can name them any more: rows older
 * than `tokenTtlSeconds` + `marginSeconds` (1 day unless given) go, of one `eventType` or of all.
 * An impression is named only by a view token (30 minutes), clicks and feedback by the longer-lived
 * click token: pruning impressions on their own lifetime keeps the table at hours of impressions
 * instead of eight days (docs/deploy.md, "Retention").
 */
export async function pruneLedger(pool: Pool, tokenTtlSeconds: number, options: { eventType?: string; marginSeconds?: number } = {}): Promise<number> {
  const { rowCount } = await pool.query(
    // event_time has a BRIN index; a row the export has not passed is never pruned, however old.
    `DELETE FROM delivery_ledger l USING delivery_export_cursor c
      WHERE l.event_time < now() - make_interval(secs => $1) AND c.id = 1 AND (l.txid, l.seq) <= (c.txid, c.seq)
        AND ($2::text IS NULL OR l.event_type = $2::text)`,
    [tokenTtlSeconds + (options.marginSeconds ?? 86_400), options.eventType ?? null],
  );
  return rowCount ?? 0;
}
