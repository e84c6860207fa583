import type { PoolClient } from 'pg';
import type { Db } from '../../lib/db';

/**
 * Deduplication by event_id (PostgreSQL `collected_event_ids`): the first inbox
 * row seen for each (organization, event_id) wins, for the dedupe window.
 */
export interface IdentifiedEvent {
  organizationId: string;
  eventId: string;
  inboxId: string;
}

/** Who holds an id: the inbox row first seen with it. */
export interface FirstSeen {
  org: string;
  event_id: string;
  inbox_id: string;
}

/**
 * Records the first sighting of each id (a conflict keeps the earlier row) and
 * returns who won, inside the mover's transaction on `client` (plain pg: the
 * pipeline's hot path, lib/db.ts). The rows it inserted are their own winners;
 * only the ids it did not insert (seen in an earlier batch, twice in this one, or
 * recorded by this very batch before a crash) are read back: reading back every id
 * would cost PostgreSQL a second pass over the whole batch (bench/history.md, "events").
 */
export async function recordFirstSeen(client: PoolClient, events: IdentifiedEvent[]): Promise<FirstSeen[]> {
  const { rows: inserted } = await client.query<FirstSeen>(
    `INSERT INTO collected_event_ids (organization_id, event_id, inbox_id)
     SELECT * FROM unnest($1::uuid[], $2::text[], $3::bigint[])
     ON CONFLICT DO NOTHING
     RETURNING organization_id::text AS org, event_id, inbox_id::text AS inbox_id`,
    [events.map((e) => e.organizationId), events.map((e) => e.eventId), events.map((e) => e.inboxId)],
  );
  if (inserted.length === events.length) return inserted;
  const won = new Set(inserted.map((w) => w.inbox_id));
  const seenBefore = events.filter((e) => !won.has(e.inboxId));
  const { rows } = await client.query<FirstSeen>(
    `SELECT c.organization_id::text AS org, c.event_id, c.inbox_id::text AS inbox_id
     FROM collected_event_ids c
     JOIN unnest($1::uuid[], $2::text[]) AS t(o, e) ON c.organization_id = t.o AND c.event_id = t.e`,
    [seenBefore.map((e) => e.organizationId), seenBefore.map((e) => e.eventId)],
  );
  return [...inserted, ...rows];
}

/** Deletes per statement when pruning: short transactions beside the running pipeline. */
const PRUNE_CHUNK = 10_000;

/** Forgets event ids older than the dedupe window, in chunks; returns how many it deleted. */
export async function pruneCollectedEventIds(db: Db, windowDays: number): Promise<number> {
  let deleted = 0;
  for (;;) {
    const n = await db.$executeRaw`
      DELETE FROM collected_event_ids WHERE ctid = ANY (ARRAY(
        SELECT ctid FROM collected_event_ids WHERE created_at < now() - make_interval(days => ${windowDays}) LIMIT ${PRUNE_CHUNK}))`;
    deleted += n;
    if (n < PRUNE_CHUNK) return deleted;
  }
}
