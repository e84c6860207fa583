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

/**
 * Records the first sighting of each id (a conflict keeps the earlier row) and
 * reads back who won, inside the mover's transaction on `client` (plain pg: the
 * pipeline's hot path, lib/db.ts).
 */
export async function recordFirstSeen(client: PoolClient, events: IdentifiedEvent[]): Promise<{ org: string; event_id: string; inbox_id: string }[]> {
  const orgs = events.map((e) => e.organizationId);
  const ids = events.map((e) => e.eventId);
  await client.query(
    `INSERT INTO collected_event_ids (organization_id, event_id, inbox_id)
     SELECT * FROM unnest($1::uuid[], $2::text[], $3::bigint[])
     ON CONFLICT DO NOTHING`,
    [orgs, ids, events.map((e) => e.inboxId)],
  );
  const { rows } = await client.query<{ org: string; event_id: string; inbox_id: string }>(
    `SELECT c.organization_id::text AS org, c.event_id, c.inbox_id::text AS inbox_id
     FROM collected_event_ids c
     JOIN unnest($1::uuid[], $2::text[]) AS t(o, e) ON c.organization_id = t.o AND c.event_id = t.e`,
    [orgs, ids],
  );
  return rows;
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
