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
 * The statements that record the first sighting of each id (a conflict keeps
 * the earlier row) and read back who won, for the mover's transaction.
 */
export function firstSeenStatements(db: Db, events: IdentifiedEvent[]) {
  const orgs = events.map((e) => e.organizationId);
  const ids = events.map((e) => e.eventId);
  return [
    db.$executeRaw`
      INSERT INTO collected_event_ids (organization_id, event_id, inbox_id)
      SELECT * FROM unnest(${orgs}::uuid[], ${ids}::text[], ${events.map((e) => e.inboxId)}::bigint[])
      ON CONFLICT DO NOTHING`,
    db.$queryRaw<{ org: string; event_id: string; inbox_id: string }[]>`
      SELECT c.organization_id::text AS org, c.event_id, c.inbox_id::text AS inbox_id
      FROM collected_event_ids c
      JOIN unnest(${orgs}::uuid[], ${ids}::text[]) AS t(o, e) ON c.organization_id = t.o AND c.event_id = t.e`,
  ] as const;
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
