import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { z } from 'zod';
import { config } from '../../lib/config';
import { utcTimestamp } from '../../lib/db';
import { isUuid } from '../ids';
import { audienceKey } from '../serving/frequency-events';

/**
 * A chat host erases one of its users (docs/api-behaviour.md, "Personal data
 * and retention"): `POST /v1/publisher/user_erasures` with its publisher key,
 * or `adctl publisher forget-user`. The request is one row of
 * `user_erasures`, committed before the 202 answers; the worker's
 * `user-erasures` job (jobs/user-erasures.ts) does the work and reports it done.
 *
 * What names a user: only the key the auction hashes from the publisher and
 * the user id (domain/serving/frequency-events.ts `audienceKey`); the user id
 * itself is stored nowhere, not even here. Keyed to it (USER_KEYED_STORES):
 * frequency events (the user's rows, and those of the user's conversations)
 * and the invalid-traffic burst counters. The auction log, the delivery ledger
 * and ClickHouse's rows hold no user key (a row there names an auction, whose
 * link to the user is the frequency event deleted here); money is never touched.
 *
 * Two sweeps: one at once, one when every tracking link minted before the
 * request has expired (an ad shown just before may still fire its view pixel,
 * which records a frequency event with the user's key: SETTLE after the
 * request), then `done`, and the user's key is cleared from the erasure's own row.
 * Every auction copy forgets the user's key in its in-memory frequency replica
 * within one sync (auction/inhouse/frequency-caps.ts reads the erasures accepted
 * since its last look: pendingErasuresSince) and ignores the key's showings until
 * the second sweep would have deleted them.
 */
export const USER_ID_MAX_CHARS = 200;

export const userErasureBodySchema = z.strictObject({
  user_id: z
    .string()
    .min(1)
    .max(USER_ID_MAX_CHARS)
    .describe(`The user's id as the chat host sends it in ad requests (\`userId\`): 1 to ${USER_ID_MAX_CHARS} characters`),
});

export const USER_ERASURE_STATUSES = ['pending', 'done'] as const;
export type UserErasureStatus = (typeof USER_ERASURE_STATUSES)[number];

/** Where rows keyed to a user live, and how each is erased (every sweep runs them all, in one transaction). */
export const USER_KEYED_STORES = ['frequency_events', 'traffic_bursts'] as const;
export type UserKeyedStore = (typeof USER_KEYED_STORES)[number];

/** The promise made to hosts: done within a day. */
export const ERASURE_DEADLINE_MS = 86_400_000;

/** Beyond a view link's lifetime: the auctions' batched writes of their wins, clocks that disagree. */
const SETTLE_MARGIN_MS = 60_000;

/**
 * How long after a request a row with the user's key may still be recorded (a
 * view link minted before it fires late): the second sweep's delay, and how
 * long the auctions ignore the key's showings.
 */
export const userErasureSettleMs = () => config.delivery.viewTokenTtlSeconds * 1000 + SETTLE_MARGIN_MS;

export interface UserErasure {
  id: string;
  object: 'user_erasure';
  status: UserErasureStatus;
  requested_at: string;
  /** When the erasure will be done at the latest. */
  due_by: string;
  completed_at: string | null;
  /** Rows deleted so far, per store. */
  deleted: Record<UserKeyedStore, number>;
}

interface Row {
  id: string;
  status: UserErasureStatus;
  requested_ms: string;
  completed_ms: string | null;
  deleted: Partial<Record<UserKeyedStore, number>>;
}

const COLUMNS = `id::text, status, (extract(epoch FROM requested_at) * 1000)::bigint::text AS requested_ms,
  (extract(epoch FROM completed_at) * 1000)::bigint::text AS completed_ms, deleted`;

function present(r: Row): UserErasure {
  const requested = Number(r.requested_ms);
  return {
    id: r.id,
    object: 'user_erasure',
    status: r.status,
    requested_at: new Date(requested).toISOString(),
    due_by: new Date(requested + ERASURE_DEADLINE_MS).toISOString(),
    completed_at: r.completed_ms === null ? null : new Date(Number(r.completed_ms)).toISOString(),
    deleted: Object.fromEntries(USER_KEYED_STORES.map((s) => [s, r.deleted[s] ?? 0])) as Record<UserKeyedStore, number>,
  };
}

/**
 * Records the erasure of `userId` for the publisher (its public id, the one
 * the auction's keys are made with); committed when this returns. A second
 * request for a user whose erasure is still pending answers that one.
 */
export async function requestUserErasure(pool: Pool, publisherId: string, userId: string, now = Date.now()): Promise<UserErasure> {
  const userKey = audienceKey('user', publisherId, userId);
  // Two requests for the same user at once: the one that lost the insert may not see the other's row yet; it asks again.
  for (let attempt = 0; ; attempt += 1) {
    const { rows } = await pool.query<Row>(
      `WITH added AS (
       INSERT INTO user_erasures (id, publisher_id, user_key, requested_at, next_sweep_at)
       VALUES ($1::uuid, $2, $3, $4::timestamp, $4::timestamp)
       ON CONFLICT (publisher_id, user_key) WHERE status = 'pending' DO NOTHING
       RETURNING ${COLUMNS}
     )
     SELECT * FROM added
     UNION ALL
     SELECT ${COLUMNS} FROM user_erasures WHERE publisher_id = $2 AND user_key = $3 AND status = 'pending' AND NOT EXISTS (SELECT 1 FROM added)`,
      [randomUUID(), publisherId, userKey, utcTimestamp(now)],
    );
    if (rows[0] || attempt >= 5) return present(rows[0]);
  }
}

/** The publisher's erasure `id`, or null (another publisher's, unknown or malformed). */
export async function findUserErasure(pool: Pool, publisherId: string, id: string): Promise<UserErasure | null> {
  if (!isUuid(id)) return null;
  const { rows } = await pool.query<Row>(`SELECT ${COLUMNS} FROM user_erasures WHERE id = $1::uuid AND publisher_id = $2`, [id, publisherId]);
  return rows[0] ? present(rows[0]) : null;
}

export interface SweepOptions {
  /** How long after a request its second sweep runs: the longest a link minted before it can still record a row with the user's key. */
  settleMs: number;
  /** Erasures per sweep (one scan of each store for all of them). */
  limit?: number;
  now?: number;
}

/**
 * One sweep of the erasures that are due: every store's rows of their users
 * deleted in one transaction with the erasures' progress; an erasure whose
 * settle time has passed is done (its user key cleared). How many were swept.
 */
export async function sweepUserErasures(pool: Pool, { settleMs, limit = 500, now = Date.now() }: SweepOptions): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const { rows: due } = await client.query<{ id: string; publisher_id: string; user_key: string; settled: boolean }>(
      `SELECT id::text, publisher_id, user_key, requested_at <= $1::timestamp AS settled
         FROM user_erasures WHERE status = 'pending' AND next_sweep_at <= $2::timestamp
        ORDER BY next_sweep_at LIMIT $3 FOR UPDATE SKIP LOCKED`,
      [utcTimestamp(now - settleMs), utcTimestamp(now), limit],
    );
    if (due.length === 0) {
      await client.query('COMMIT');
      return 0;
    }
    const publishers = due.map((e) => e.publisher_id);
    const keys = due.map((e) => e.user_key);
    // The users' rows, and the rows of their conversations (a contextual-only request's row has a chat key alone).
    const { rows: shown } = await client.query<{ publisher_id: string; user_key: string; chat_key: string }>(
      `WITH erased AS (SELECT * FROM unnest($1::text[], $2::text[]) AS e(publisher_id, user_key)),
            chats AS (SELECT DISTINCT f.publisher_id, f.chat_key, f.user_key FROM frequency_events f
                        JOIN erased e ON e.publisher_id = f.publisher_id AND e.user_key = f.user_key WHERE f.chat_key <> '')
       DELETE FROM frequency_events f
        USING (SELECT publisher_id, user_key, '' AS chat_key FROM erased UNION ALL SELECT publisher_id, user_key, chat_key FROM chats) x
        WHERE f.publisher_id = x.publisher_id AND (f.user_key = x.user_key OR (x.chat_key <> '' AND f.chat_key = x.chat_key))
       RETURNING f.publisher_id, x.user_key, f.chat_key`,
      [publishers, keys],
    );
    const { rows: bursts } = await client.query<{ publisher_id: string; key: string }>(
      `DELETE FROM traffic_bursts b USING unnest($1::text[], $2::text[]) AS e(publisher_id, user_key)
        WHERE b.publisher_id = e.publisher_id AND b.key = 'u:' || e.user_key
        RETURNING b.publisher_id, b.key`,
      [publishers, keys],
    );
    const counts = due.map((e) => ({
      frequency_events: countOf(shown, (r) => r.publisher_id === e.publisher_id && r.user_key === e.user_key),
      traffic_bursts: countOf(bursts, (r) => r.publisher_id === e.publisher_id && r.key === `u:${e.user_key}`),
    }));
    await client.query(
      `UPDATE user_erasures u
          SET deleted = jsonb_build_object('frequency_events', coalesce((u.deleted->>'frequency_events')::bigint, 0) + c.frequency_events,
                                           'traffic_bursts', coalesce((u.deleted->>'traffic_bursts')::bigint, 0) + c.traffic_bursts),
              status = CASE WHEN c.settled THEN 'done' ELSE 'pending' END,
              user_key = CASE WHEN c.settled THEN NULL ELSE u.user_key END,
              completed_at = CASE WHEN c.settled THEN $5::timestamp END,
              next_sweep_at = CASE WHEN c.settled THEN u.next_sweep_at ELSE u.requested_at + make_interval(secs => $6::double precision) END
         FROM unnest($1::uuid[], $2::bigint[], $3::bigint[], $4::boolean[]) AS c(id, frequency_events, traffic_bursts, settled)
        WHERE u.id = c.id`,
      [
        due.map((e) => e.id),
        counts.map((c) => c.frequency_events),
        counts.map((c) => c.traffic_bursts),
        due.map((e) => e.settled),
        utcTimestamp(now),
        settleMs / 1000,
      ],
    );
    await client.query('COMMIT');
    return due.length;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

function countOf<T>(rows: readonly T[], match: (row: T) => boolean): number {
  let n = 0;
  for (const r of rows) if (match(r)) n += 1;
  return n;
}

/** An erasure as an auction's frequency replica reads it: whose key, and since when. */
export interface AcceptedErasure {
  publisherId: string;
  userKey: string;
  requestedMs: number;
}

/**
 * Erasures requested at `sinceMs` or later and not done yet (a done one's key is
 * cleared, and its rows are gone), oldest first: what each auction copy reads
 * at every frequency sync (the `user_erasures_pending_requested` index).
 */
export async function pendingErasuresSince(pool: Pool, sinceMs: number, limit = 10_000): Promise<AcceptedErasure[]> {
  const { rows } = await pool.query<{ publisher_id: string; user_key: string; requested_ms: string }>(
    `SELECT publisher_id, user_key, (extract(epoch FROM requested_at) * 1000)::bigint::text AS requested_ms
       FROM user_erasures WHERE status = 'pending' AND requested_at >= $1::timestamp ORDER BY requested_at LIMIT $2`,
    [utcTimestamp(sinceMs), limit],
  );
  return rows.map((r) => ({ publisherId: r.publisher_id, userKey: r.user_key, requestedMs: Number(r.requested_ms) }));
}

/** Erasures not done yet and the age of the oldest (seconds; 0 when none): the metric that says whether the day's promise holds. */
export async function pendingUserErasures(pool: Pool, now = Date.now()): Promise<{ pending: number; oldestSeconds: number }> {
  const { rows } = await pool.query<{ pending: string; oldest_ms: string | null }>(
    `SELECT count(*)::text AS pending, (extract(epoch FROM min(requested_at)) * 1000)::bigint::text AS oldest_ms FROM user_erasures WHERE status = 'pending'`,
  );
  const oldest = rows[0].oldest_ms === null ? now : Number(rows[0].oldest_ms);
  return { pending: Number(rows[0].pending), oldestSeconds: Math.max(0, Math.round((now - oldest) / 1000)) };
}
