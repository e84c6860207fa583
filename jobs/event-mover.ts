import type { PoolClient } from 'pg';
import type { ClickHouseClient } from '@clickhouse/client';
import { inClientTransaction, plainPoolOf, withSessionLock, type Db } from '../lib/db';
import { sql } from '../lib/clickhouse/sql';
import { insertSettingAsideRefused } from '../lib/clickhouse/refused-rows';
import { deadInsertsSettled, runningInsertsSql } from '../lib/clickhouse/running-inserts';
import { deadLetterInsert, deadLettersOf, type DeadLetter } from '../domain/dead-letters/store';
import { COLLECTED_EVENTS_TABLE } from '../domain/events/clickhouse-tables';
import { enrich, type CollectedEventRow, type GeoLookup, type InboxRow } from '../domain/events/enrich';
import type { CollectedEvent } from '../domain/events/event';
import { recordFirstSeen } from '../domain/events/event-ids';

/**
 * Moves accepted events from the PostgreSQL inbox to ClickHouse, exactly once
 * (the event pipeline job, jobs/event-pipeline.ts, runs it).
 *
 * - Dedupe by event_id: `collected_event_ids` keeps the first inbox row seen for
 *   each (organization, event_id) (domain/events/event-ids.ts); any other row with that id is dropped.
 * - Exactly once into ClickHouse (18.16 has no insert-deduplication tokens for
 *   plain MergeTree): before inserting, the batch's inbox id range is recorded
 *   as in flight in PostgreSQL; the inbox rows are deleted (and the mark cleared)
 *   in one transaction after ClickHouse committed. A batch found in flight after
 *   a crash is redone minus the inbox ids ClickHouse already has (after any insert
 *   of the dead mover that ClickHouse still runs has ended), so no row is lost or
 *   doubled whatever instant the mover died at.
 * - One mover at a time per database: a PostgreSQL advisory lock held for the
 *   batch (released by PostgreSQL if the mover dies), so a second worker or a
 *   zombie attempt never interleaves. The batch's statements run on the lock's
 *   own connection, a plain `pg` one (lib/db.ts plainPoolOf): Prisma spent
 *   several times pg's CPU on them.
 * - A row ClickHouse refuses (or that cannot be read at all) never holds the
 *   pipeline up: it is set aside as a dead letter (domain/dead-letters) in the
 *   transaction that consumes the batch, and the rest of the batch goes through.
 */
export const EVENT_PIPELINE_LOCK = 727_001; // pg advisory lock id of the event pipeline
const POLL_MS = 100;

export interface MoveBatchInput {
  /** How long to wait for events before returning empty-handed. */
  waitMs: number;
  batchSize: number;
  /** How long the oldest waiting event may wait for a batch to fill (default 0: move at once). */
  gatherMs?: number;
}
export interface MoveBatchResult {
  /** Inbox rows consumed (stored + duplicates + dead letters). */
  moved: number;
  /** Rows written to ClickHouse. */
  stored: number;
  /** Rows ClickHouse refused (or unreadable ones), set aside. */
  deadLetters: number;
  /** Another mover holds the lock. */
  busy: boolean;
}

export interface MoverDeps {
  db: Db;
  clickhouse: ClickHouseClient;
  geo: GeoLookup;
  /** Called while waiting, so that a host watching for liveness (a Temporal activity) knows. */
  heartbeat?: () => void;
}

export interface RawInboxRow {
  id: string;
  organization_id: string;
  /** received_at (UTC, no zone) in Unix milliseconds. */
  received_ms: string;
  ip_address: string;
  event: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An inbox row's event: JSON of an object with a string event_name (what intake stored), or an error. */
function readEvent(text: string): CollectedEvent {
  const event = JSON.parse(text) as unknown;
  if (typeof event !== 'object' || event === null || typeof (event as CollectedEvent).event_name !== 'string') throw new Error('not an event object');
  return event as CollectedEvent;
}

/**
 * What the inbox holds for the mover: a batch left in flight by a dead mover
 * (`recovering`), any row at all (`waiting`), and whether a batch is due: a full
 * one may be waiting, or the oldest row has waited `gatherMs`. The inbox is read
 * only at the two ends of its primary key. "A full one may be waiting" is the
 * span of its ids: ids only grow, so the span is at least the rows waiting (gaps
 * of rolled-back inserts only make it larger, and a batch then starts a little
 * early). Counting the rows, and `EXISTS` on the table, scanned its heap, dead
 * rows included, on every poll, and it polls up to ten times a second
 * (bench/history.md, "events").
 */
export async function inboxWork(db: Db, batchSize: number, gatherMs: number): Promise<{ recovering: boolean; waiting: boolean; due: boolean }> {
  // Plain SQL (lib/db.ts plainPoolOf): this poll runs up to ten times a second while a batch gathers, and Prisma spends several times pg's CPU on a query.
  const {
    rows: [row],
  } = await plainPoolOf(db).query<{ recovering: boolean; waiting: boolean; due: boolean }>(
    `WITH oldest AS (SELECT id, received_at FROM event_inbox ORDER BY id LIMIT 1)
     SELECT EXISTS (SELECT 1 FROM event_pipeline_state WHERE in_flight_from IS NOT NULL) AS recovering,
            EXISTS (SELECT 1 FROM oldest) AS waiting,
            coalesce((SELECT (SELECT max(id) FROM event_inbox) - id + 1 >= $1::int
                             OR received_at <= (now() AT TIME ZONE 'UTC') - make_interval(secs => $2::float8) FROM oldest), false) AS due`,
    [batchSize, gatherMs / 1000],
  );
  return row;
}

/**
 * Waits up to `waitMs` for work; once there is some, gathers until a full
 * batch waits or the oldest row has waited `gatherMs` (one ClickHouse insert
 * then carries many requests' events: ClickHouse is far cheaper per row in
 * large inserts). A batch left in flight by a dead mover is work at once.
 * An empty inbox is asked again only after `gatherMs`: a row that arrives
 * meanwhile would wait about that long for its batch anyway (unless a whole
 * batch arrives within it), so an idle mover polls about once a second, not ten times.
 */
async function waitForWork(deps: MoverDeps, { waitMs, batchSize, gatherMs = 0 }: MoveBatchInput): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const work = await inboxWork(deps.db, batchSize, gatherMs);
    if (work.recovering || (work.waiting && (work.due || Date.now() >= deadline))) return true;
    if (Date.now() >= deadline) return false;
    deps.heartbeat?.();
    await sleep(work.waiting ? POLL_MS : Math.max(POLL_MS, Math.min(gatherMs, deadline - Date.now())));
  }
}

/** How many inserts into the collected events are running (lib/clickhouse/running-inserts.ts). */
export const RUNNING_INSERTS_SQL = runningInsertsSql([COLLECTED_EVENTS_TABLE]);

/** The inbox ids in [from, to] that the collected events hold already. */
export const storedInboxIdsSql = (from: string, to: string) =>
  `SELECT toString(inbox_id) AS id FROM ${COLLECTED_EVENTS_TABLE} WHERE ${sql`inbox_id >= ${BigInt(from)} AND inbox_id <= ${BigInt(to)}`}`;

const INBOX_COLUMNS = `id::text, organization_id::text, (extract(epoch FROM received_at) * 1000)::bigint::text AS received_ms, ip_address, event`;

/**
 * Inbox rows in id order: those in [from, to] (a batch left in flight), else the oldest `limit`.
 * The order names the table's column: a bare `id` would be the text output column of the same
 * name, which sorts '1000' before '999' (and took a full sort instead of the primary key).
 */
export async function inboxRows(client: PoolClient, range: { from: string; to: string } | { limit: number }): Promise<RawInboxRow[]> {
  const { rows } =
    'limit' in range
      ? await client.query<RawInboxRow>(`SELECT ${INBOX_COLUMNS} FROM event_inbox ORDER BY event_inbox.id LIMIT $1::int`, [range.limit])
      : await client.query<RawInboxRow>(`SELECT ${INBOX_COLUMNS} FROM event_inbox WHERE id BETWEEN $1::bigint AND $2::bigint ORDER BY event_inbox.id`, [
          range.from,
          range.to,
        ]);
  return rows;
}

/** The batch to move: the one left in flight, else the oldest inbox rows; rows that are not events become dead letters. */
async function readBatch(client: PoolClient, batchSize: number) {
  const {
    rows: [state],
  } = await client.query<{ from: string | null; to: string | null }>(
    'SELECT in_flight_from::text AS "from", in_flight_to::text AS "to" FROM event_pipeline_state WHERE id = 1',
  );
  const recovering = Boolean(state?.from && state?.to);
  const raw = await inboxRows(client, recovering ? { from: state.from!, to: state.to! } : { limit: batchSize });
  const unreadable: DeadLetter[] = [];
  const rows: InboxRow[] = [];
  for (const { received_ms, ...r } of raw) {
    const receivedAt = new Date(Number(received_ms));
    try {
      rows.push({ id: BigInt(r.id), organizationId: r.organization_id, receivedAt, ipAddress: r.ip_address, event: readEvent(r.event) });
    } catch (err) {
      unreadable.push({
        targetTable: COLLECTED_EVENTS_TABLE,
        rowKey: r.id,
        payload: JSON.stringify({ ...r, received_at: receivedAt }),
        error: `unreadable inbox row: ${(err as Error).message}`,
      });
    }
  }
  const ids = raw.map((r) => r.id);
  return { recovering, ids, rows, unreadable, from: recovering ? state.from! : ids[0], to: recovering ? state.to! : ids[ids.length - 1] };
}

/** Step 1: the event_id ledger and the in-flight mark, in one transaction; the rows that are first of their id. */
async function markInFlight(client: PoolClient, rows: InboxRow[], from: string, to: string): Promise<InboxRow[]> {
  if (rows.length === 0) return rows;
  const identified = rows
    .filter((r) => r.event.event_id !== undefined)
    .map((r) => ({ organizationId: r.organizationId, eventId: r.event.event_id!, inboxId: r.id.toString() }));
  const firstSeen = await inClientTransaction(client, async () => {
    const winners = identified.length > 0 ? await recordFirstSeen(client, identified) : [];
    await client.query(
      `INSERT INTO event_pipeline_state (id, in_flight_from, in_flight_to) VALUES (1, $1::bigint, $2::bigint)
       ON CONFLICT (id) DO UPDATE SET in_flight_from = EXCLUDED.in_flight_from, in_flight_to = EXCLUDED.in_flight_to`,
      [from, to],
    );
    return winners;
  });
  const winners = new Map(firstSeen.map((w) => [`${w.org}/${w.event_id}`, w.inbox_id]));
  return rows.filter((r) => r.event.event_id === undefined || winners.get(`${r.organizationId}/${r.event.event_id}`) === r.id.toString());
}

/** Step 2, after a crash: only what ClickHouse does not have yet, once a dead mover's insert still running has ended. */
async function notYetStored(deps: MoverDeps, rows: InboxRow[], from: string, to: string): Promise<InboxRow[]> {
  if (rows.length === 0) return rows;
  // We hold the lock, so any insert into the table still running is a dead mover's.
  await deadInsertsSettled(deps.clickhouse, [COLLECTED_EVENTS_TABLE], { pollMs: POLL_MS, heartbeat: deps.heartbeat });
  const result = await deps.clickhouse.query({
    query: storedInboxIdsSql(from, to),
    format: 'JSONEachRow',
  });
  const present = new Set((await result.json<{ id: string }>()).map((r) => r.id));
  return rows.filter((r) => !present.has(r.id.toString()));
}

/** Step 2: the enriched rows into ClickHouse; what cannot be enriched or is refused comes back as dead letters. */
async function store(deps: MoverDeps, rows: InboxRow[]): Promise<{ stored: number; deadLetters: DeadLetter[] }> {
  const deadLetters: DeadLetter[] = [];
  const enriched: CollectedEventRow[] = [];
  for (const r of rows) {
    try {
      enriched.push(enrich(r, deps.geo));
    } catch (err) {
      deadLetters.push({
        targetTable: COLLECTED_EVENTS_TABLE,
        rowKey: r.id.toString(),
        payload: JSON.stringify(r.event),
        error: `unenrichable event: ${(err as Error).message}`,
      });
    }
  }
  const refused = await insertSettingAsideRefused(enriched, (values) =>
    deps.clickhouse.insert({ table: COLLECTED_EVENTS_TABLE, values, format: 'JSONEachRow' }).then(() => undefined),
  );
  return { stored: enriched.length - refused.length, deadLetters: [...deadLetters, ...deadLettersOf(COLLECTED_EVENTS_TABLE, refused, (row) => row.inbox_id)] };
}

/** Step 3: out of the inbox, dead letters set aside, the mark cleared, atomically. */
async function consume(client: PoolClient, ids: string[], deadLetters: DeadLetter[]): Promise<void> {
  const setAside = deadLetters.length > 0 ? deadLetterInsert(deadLetters) : null;
  await inClientTransaction(client, async () => {
    await client.query('DELETE FROM event_inbox WHERE id = ANY($1::bigint[])', [ids]);
    if (setAside) await client.query(setAside.text, setAside.values);
    await client.query('UPDATE event_pipeline_state SET in_flight_from = NULL, in_flight_to = NULL WHERE id = 1');
  });
}

async function moveLocked(deps: MoverDeps, client: PoolClient, batchSize: number): Promise<Omit<MoveBatchResult, 'busy'>> {
  const batch = await readBatch(client, batchSize);
  let keep = await markInFlight(client, batch.rows, batch.from, batch.to);
  if (batch.recovering) keep = await notYetStored(deps, keep, batch.from, batch.to);
  deps.heartbeat?.();
  const { stored, deadLetters } = await store(deps, keep);
  const allDeadLetters = [...batch.unreadable, ...deadLetters];
  await consume(client, batch.ids, allDeadLetters);
  return { moved: batch.ids.length, stored, deadLetters: allDeadLetters.length };
}

/** Waits up to `waitMs` for inbox rows, then moves one batch of at most `batchSize`. */
export async function moveEventBatch(deps: MoverDeps, input: MoveBatchInput): Promise<MoveBatchResult> {
  if (!(await waitForWork(deps, input))) return { moved: 0, stored: 0, deadLetters: 0, busy: false };
  const turn = await withSessionLock(plainPoolOf(deps.db), EVENT_PIPELINE_LOCK, (client) => moveLocked(deps, client, input.batchSize));
  return turn.locked ? { ...turn.value, busy: false } : { moved: 0, stored: 0, deadLetters: 0, busy: true };
}
