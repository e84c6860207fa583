import type { Db } from '../../lib/db';

/**
 * Idempotency records (api/http/idempotency.ts writes and reads them). A completed record is
 * the first response to its key, replayed with no expiry (spec 1: "the same Idempotency-Key
 * replays the first response with no expiry"), so it is kept. A record never completed is a
 * request that failed with a 5xx (answered, not stored: a retry runs again) or a process that
 * died mid-request; past `olderThanMs` no request with its key is still running (a campaign
 * create gives up after CAMPAIGN_CREATE_TIMEOUT_MS), so retention deletes it, and a later
 * request with that key simply starts afresh. Returns how many went.
 */
export async function pruneAbandonedIdempotencyRecords(db: Db, olderThanMs: number, now = Date.now()): Promise<number> {
  const { count } = await db.idempotencyRecord.deleteMany({ where: { completedAt: null, createdAt: { lt: new Date(now - olderThanMs) } } });
  return count;
}
