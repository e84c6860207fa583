import { Context } from '@temporalio/activity';
import { Client as PgClient } from 'pg';
import type { ClickHouseClient } from '@clickhouse/client';
import type { Db } from '../lib/db';
import { config } from '../lib/config';
import { sql } from '../lib/clickhouse/sql';
import { COLLECTED_EVENTS_TABLE } from '../domain/events/clickhouse-tables';
import { enrich, type CollectedEventRow, type GeoLookup, type InboxRow } from '../domain/events/enrich';
import type { CollectedEvent } from '../domain/events/event';
import { insertSettingAsideRefused } from '../lib/clickhouse/refused-rows';
import { deadLetterInsert, deadLettersOf, type DeadLetter } from '../domain/dead-letters/store';

/**
 * Moves accepted events from the PostgreSQL inbox to ClickHouse, exactly once.
 *
 * - Dedupe by event_id: `collected_event_ids` keeps the first inbox row seen for
 *   each (organization, event_id), forever; any other row with that id is dropped.
 * - Exactly once into ClickHouse (18.16 has no insert-deduplication tokens for
 *   plain MergeTree): before inserting, the batch's inbox id range is recorded
 *   as in flight in PostgreSQL; the inbox rows are deleted (and the mark cleared)
 *   in one transaction after ClickHouse committed. A batch found in flight after
 *   a crash is redone minus the inbox ids ClickHouse already has (after any insert
 *   of the dead mover that ClickHouse still runs has ended), so no row is lost or
 *   doubled whatever instant the worker died at.
 * - One mover at a time per database: a PostgreSQL advisory lock held for the
 *   batch (released by PostgreSQL if the worker dies), so a second worker or a
 *   zombie attempt never interleaves.
 * - A row ClickHouse refuses (or that cannot be read at all) never holds the
 *   pipeline up: it is set aside as a dead letter (domain/dead-letters) in the
 *   transaction that consumes the batch, and the rest of the batch goes through.
 */
const LOCK_KEY = 727_001; // pg advisory lock id of the event pipeline
const POLL_MS = 100;
/** How long a recovering mover waits, at least, for a dead mover's insert to reach ClickHouse. */
const RECOVERY_SETTLE_MS = 1_000;

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

interface RawInboxRow { id: string; organization_id: string; received_at: Date; ip_address: string; event: string }

/** An inbox row's event: JSON of an object with a string event_name (what intake stored), or an error. */
function readEvent(text: string): CollectedEvent {
  const event = JSON.parse(text) as unknown;
  if (typeof event !== 'object' || event === null || typeof (event as CollectedEvent).event_name !== 'string') throw new Error('not an event object');
  return event as CollectedEvent;
}

/** geoip-lite holds its ~100 MB database in memory: loaded on first use, in the worker only. */
let geoip: typeof import('geoip-lite') | undefined;
export const geoLookup: GeoLookup = (ip) => {
  geoip ??= require('geoip-lite') as typeof import('geoip-lite');
  const found = geoip.lookup(ip);
  if (!found) return null;
  const [lat, lon] = found.ll ?? [];
  return { country: found.country ?? '', region: found.region ?? '', city: found.city ?? '', lat: lat ?? null, lon: lon ?? null };
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function heartbeat(): void {
  try { Context.current().heartbeat(); } catch { /* called outside an activity (tests, bench) */ }
}

/** Deletes per statement when pruning: short transactions beside the running pipeline. */
const PRUNE_CHUNK = 10_000;

/**
 * Forgets event ids older than the dedupe window (config.events.dedupeWindowDays),
 * in chunks; returns how many it deleted. Run hourly by the mover.
 */
export async function pruneCollectedEventIds(db: Db, windowDays = config.events.dedupeWindowDays): Promise<number> {
  let deleted = 0;
  for (;;) {
    const n = await db.$executeRaw`
      DELETE FROM collected_event_ids WHERE ctid = ANY (ARRAY(
        SELECT ctid FROM collected_event_ids WHERE created_at < now() - make_interval(days => ${windowDays}) LIMIT ${PRUNE_CHUNK}))`;
    deleted += n;
    if (n < PRUNE_CHUNK) return deleted;
  }
}

const PRUNE_EVERY_MS = 3_600_000;

export function eventPipelineActivities(db: Db, clickhouse: ClickHouseClient, geo: GeoLookup = geoLookup) {
  let lastPrune = Date.now();
  /**
   * Waits up to `waitMs` for work; once there is some, gathers until a full
   * batch waits or the oldest row has waited `gatherMs` (one ClickHouse insert,
   * one activity and one lock connection then carry many requests' events:
   * ClickHouse is far cheaper per row in large inserts). A batch left in flight
   * by a dead mover is work at once.
   */
  async function waitForWork(waitMs: number, batchSize: number, gatherMs: number): Promise<boolean> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const [row] = await db.$queryRaw<{ recovering: boolean; waiting: boolean; due: boolean }[]>`
        SELECT EXISTS (SELECT 1 FROM event_pipeline_state WHERE in_flight_from IS NOT NULL) AS recovering,
               EXISTS (SELECT 1 FROM event_inbox) AS waiting,
               (SELECT count(*) FROM (SELECT 1 FROM event_inbox LIMIT ${batchSize}) AS batch) >= ${batchSize}
               OR (SELECT received_at FROM event_inbox ORDER BY id LIMIT 1) <= (now() AT TIME ZONE 'UTC') - make_interval(secs => ${gatherMs / 1000}) AS due`;
      if (row.recovering || (row.waiting && (row.due || Date.now() >= deadline))) return true;
      if (Date.now() >= deadline) return false;
      heartbeat();
      await sleep(POLL_MS);
    }
  }

  /**
   * A mover killed mid-insert may have handed ClickHouse a complete batch that it
   * is still writing; its rows become visible only when that insert ends. We hold
   * the lock, so any insert into the table still running is such a leftover: wait
   * (at least RECOVERY_SETTLE_MS) until none runs, then read what arrived.
   */
  async function deadInsertsSettled(): Promise<void> {
    const since = Date.now();
    for (;;) {
      const result = await clickhouse.query({
        // The needle is built with concat, so that this query's own text does not match it.
        query: sql`SELECT count() AS running FROM system.processes WHERE positionCaseInsensitive(query, concat('INSERT INTO ', ${COLLECTED_EVENTS_TABLE})) > 0`,
        format: 'JSONEachRow',
      });
      const [{ running }] = await result.json<{ running: number }>();
      if (Number(running) === 0 && Date.now() - since >= RECOVERY_SETTLE_MS) return;
      heartbeat();
      await sleep(POLL_MS);
    }
  }

  async function moveLocked(batchSize: number): Promise<Omit<MoveBatchResult, 'busy'>> {
    const [state] = await db.$queryRaw<{ from: string | null; to: string | null }[]>`
      SELECT in_flight_from::text AS "from", in_flight_to::text AS "to" FROM event_pipeline_state WHERE id = 1`;
    const recovering = Boolean(state?.from && state?.to);
    const raw = recovering
      ? await db.$queryRaw<RawInboxRow[]>`
          SELECT id::text, organization_id::text, received_at, ip_address, event FROM event_inbox
          WHERE id BETWEEN ${state!.from}::bigint AND ${state!.to}::bigint ORDER BY id`
      : await db.$queryRaw<RawInboxRow[]>`
          SELECT id::text, organization_id::text, received_at, ip_address, event FROM event_inbox ORDER BY id LIMIT ${batchSize}`;
    const unreadable: DeadLetter[] = [];
    const rows: InboxRow[] = [];
    for (const r of raw) {
      try {
        rows.push({ id: BigInt(r.id), organizationId: r.organization_id, receivedAt: r.received_at, ipAddress: r.ip_address, event: readEvent(r.event) });
      } catch (err) {
        unreadable.push({ targetTable: COLLECTED_EVENTS_TABLE, rowKey: r.id, payload: JSON.stringify(r), error: `unreadable inbox row: ${(err as Error).message}` });
      }
    }
    const ids = raw.map((r) => r.id);
    const from = recovering ? state!.from! : ids[0];
    const to = recovering ? state!.to! : ids[ids.length - 1];

    // 1. The event_id ledger and the in-flight mark, in one transaction.
    const withId = rows.filter((r) => r.event.event_id !== undefined);
    const orgs = withId.map((r) => r.organizationId);
    const eventIds = withId.map((r) => r.event.event_id!);
    const rowIds = withId.map((r) => r.id.toString());
    const winners = new Map<string, string>();
    if (rows.length > 0) {
      const [, firstSeen] = await db.$transaction([
        db.$executeRaw`
          INSERT INTO collected_event_ids (organization_id, event_id, inbox_id)
          SELECT * FROM unnest(${orgs}::uuid[], ${eventIds}::text[], ${rowIds}::bigint[])
          ON CONFLICT DO NOTHING`,
        db.$queryRaw<{ org: string; event_id: string; inbox_id: string }[]>`
          SELECT c.organization_id::text AS org, c.event_id, c.inbox_id::text AS inbox_id
          FROM collected_event_ids c
          JOIN unnest(${orgs}::uuid[], ${eventIds}::text[]) AS t(o, e) ON c.organization_id = t.o AND c.event_id = t.e`,
        db.$executeRaw`
          INSERT INTO event_pipeline_state (id, in_flight_from, in_flight_to) VALUES (1, ${from}::bigint, ${to}::bigint)
          ON CONFLICT (id) DO UPDATE SET in_flight_from = EXCLUDED.in_flight_from, in_flight_to = EXCLUDED.in_flight_to`,
      ]);
      for (const w of firstSeen) winners.set(`${w.org}/${w.event_id}`, w.inbox_id);
    }
    let keep = rows.filter((r) => r.event.event_id === undefined || winners.get(`${r.organizationId}/${r.event.event_id}`) === r.id.toString());

    // 2. ClickHouse: after a crash, only what it does not have yet; first let a dead
    //    mover's insert that ClickHouse is still running finish (or fail).
    if (recovering && keep.length > 0) {
      await deadInsertsSettled();
      const result = await clickhouse.query({
        query: `SELECT toString(inbox_id) AS id FROM ${COLLECTED_EVENTS_TABLE} WHERE ${sql`inbox_id >= ${BigInt(from)} AND inbox_id <= ${BigInt(to)}`}`,
        format: 'JSONEachRow',
      });
      const present = new Set((await result.json<{ id: string }>()).map((r) => r.id));
      keep = keep.filter((r) => !present.has(r.id.toString()));
    }
    heartbeat();
    const enriched: CollectedEventRow[] = [];
    for (const r of keep) {
      try { enriched.push(enrich(r, geo)); } catch (err) {
        unreadable.push({ targetTable: COLLECTED_EVENTS_TABLE, rowKey: r.id.toString(), payload: JSON.stringify(r.event), error: `unenrichable event: ${(err as Error).message}` });
      }
    }
    const refused = await insertSettingAsideRefused(enriched, (values) => clickhouse.insert({ table: COLLECTED_EVENTS_TABLE, values, format: 'JSONEachRow' }).then(() => undefined));
    const deadLetters = [...unreadable, ...deadLettersOf(COLLECTED_EVENTS_TABLE, refused, (row) => row.inbox_id)];

    // 3. Consumed: out of the inbox, dead letters set aside, mark cleared, atomically.
    const setAside = deadLetters.length > 0 ? deadLetterInsert(deadLetters) : null;
    await db.$transaction([
      db.$executeRaw`DELETE FROM event_inbox WHERE id = ANY(${ids}::bigint[])`,
      ...(setAside ? [db.$executeRawUnsafe(setAside.text, ...setAside.values)] : []),
      db.$executeRaw`UPDATE event_pipeline_state SET in_flight_from = NULL, in_flight_to = NULL WHERE id = 1`,
    ]);
    return { moved: raw.length, stored: enriched.length - refused.length, deadLetters: deadLetters.length };
  }

  return {
    /** Waits up to `waitMs` for inbox rows, then moves one batch of at most `batchSize`. */
    async moveEventBatch(input: MoveBatchInput): Promise<MoveBatchResult> {
      if (!(await waitForWork(input.waitMs, input.batchSize, input.gatherMs ?? 0))) return { moved: 0, stored: 0, deadLetters: 0, busy: false };
      const lock = new PgClient({ connectionString: config.databaseUrl });
      await lock.connect();
      try {
        const { rows } = await lock.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [LOCK_KEY]);
        if (!rows[0].locked) return { moved: 0, stored: 0, deadLetters: 0, busy: true };
        try {
          const moved = await moveLocked(input.batchSize);
          if (Date.now() - lastPrune > PRUNE_EVERY_MS) {
            lastPrune = Date.now();
            await pruneCollectedEventIds(db);
          }
          return { ...moved, busy: false };
        } finally {
          await lock.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]);
        }
      } finally {
        await lock.end();
      }
    },
  };
}
