import type { Pool } from 'pg';
import { utcTimestamp, type Db } from '../../lib/db';
import type { FeedbackCallback, TrackedDelivery } from './ledger';

/**
 * Feedback owed to DSPs (PostgreSQL `dsp_callbacks`): the feedback tracker
 * records the thumbs up/down and queues the call in the same transaction
 * (domain/delivery/ledger.ts); this forwarder POSTs it in the background, so
 * the user never waits on a DSP, and retries a failing DSP with exponential
 * backoff. After the last attempt the row stays, parked, for operators.
 *
 * Where a call may go: only to a host the operator configured for that DSP
 * (its bid or render URL's host). A URL in a DSP's answer is the DSP's word,
 * and our server must not be steered by it into other networks (SSRF).
 *
 * The call (docs/api-behaviour.md, "Delivery tracking and money"): `POST <feedback_url>` with
 * `{ "feedback": "thumbs_up" | "thumbs_down", "auction_id", "bid_id", "timestamp" }`, and `reason` when the user gave one.
 */
export function feedbackCallbackOf(delivery: TrackedDelivery): FeedbackCallback | null {
  const c = delivery.claims;
  if (c.source !== 'dsp' || !c.dsp_id || !c.dsp_feedback_url) return null;
  return {
    dspId: c.dsp_id,
    url: c.dsp_feedback_url,
    body: JSON.stringify({
      feedback: delivery.type,
      auction_id: c.auction_id,
      bid_id: c.bid_id ?? null,
      timestamp: Math.floor(delivery.time.getTime() / 1000),
      ...(delivery.reason ? { reason: delivery.reason } : {}),
    }),
  };
}

/** Backoff before attempt n+1: 1 s, 2 s, 4 s, ... capped at 10 minutes. */
export const retryDelayMs = (attempts: number) => Math.min(1000 * 2 ** Math.max(0, attempts - 1), 600_000);

interface DueCallback {
  id: string;
  dsp_id: string;
  url: string;
  body: string;
  attempts: number;
}

/** The hosts a DSP's callbacks may reach: those of its configured bid and render URLs. */
async function configuredHosts(pool: Pool, dspIds: string[]): Promise<Map<string, Set<string>>> {
  const { rows } = await pool.query<{ id: string; bid_url: string; render_url: string | null }>(
    'SELECT id::text, bid_url, render_url FROM dsps WHERE id::text = ANY($1::text[])',
    [dspIds],
  );
  const hosts = new Map<string, Set<string>>();
  for (const r of rows) hosts.set(r.id, new Set([r.bid_url, r.render_url].filter((u): u is string => !!u).map((u) => new URL(u).host)));
  return hosts;
}

function allowedTarget(url: string, hosts: Set<string> | undefined): URL | null {
  try {
    const target = new URL(url);
    if ((target.protocol !== 'http:' && target.protocol !== 'https:') || target.username || target.password) return null;
    return hosts?.has(target.host) ? target : null;
  } catch {
    return null;
  }
}

/**
 * Sends the callbacks that are due (leased for a minute so a second forwarder
 * skips them); returns how many it attempted.
 */
export async function forwardDueCallbacks(pool: Pool, opts: { maxAttempts: number; timeoutMs: number; limit?: number }): Promise<number> {
  const { rows: due } = await pool.query<DueCallback>(
    `UPDATE dsp_callbacks SET next_attempt_at = now() + interval '1 minute'
      WHERE id IN (SELECT id FROM dsp_callbacks WHERE next_attempt_at <= now() ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
      RETURNING id::text, dsp_id, url, body, attempts`,
    [opts.limit ?? 50],
  );
  if (due.length === 0) return 0;
  const hosts = await configuredHosts(pool, [...new Set(due.map((d) => d.dsp_id))]);
  await Promise.all(
    due.map(async (call) => {
      const target = allowedTarget(call.url, hosts.get(call.dsp_id));
      const error = target ? await post(target, call.body, opts.timeoutMs) : 'feedback_url is not on a host configured for this DSP';
      if (error === null) {
        await pool.query('DELETE FROM dsp_callbacks WHERE id = $1', [call.id]);
        return;
      }
      const attempts = call.attempts + 1;
      // Out of attempts (or a target we will never call): parked (due in year 9999), kept for operators.
      const parked = attempts >= opts.maxAttempts || !target;
      await pool.query(
        `UPDATE dsp_callbacks SET attempts = $2, last_error = $3,
              next_attempt_at = CASE WHEN $4 THEN $6::timestamp ELSE now() + make_interval(secs => $5) END
        WHERE id = $1`,
        [call.id, attempts, error.slice(0, 500), parked, retryDelayMs(attempts) / 1000, utcTimestamp(PARKED_AT)],
      );
    }),
  );
  return due.length;
}

/** null on a 2xx answer, else what went wrong. Redirects are not followed. */
async function post(target: URL, body: string, timeoutMs: number): Promise<string | null> {
  try {
    const res = await fetch(target, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.arrayBuffer().catch(() => undefined);
    return res.status >= 200 && res.status < 300 ? null : `HTTP ${res.status}`;
  } catch (err) {
    return (err as Error).name === 'TimeoutError' ? `timed out after ${timeoutMs} ms` : (err as Error).message;
  }
}

/** When a parked call is due: never, until an operator retries it. */
const PARKED_AT = new Date('9999-12-31T00:00:00Z');

/** Calls that ran out of attempts (or aim at a host not configured for their DSP), oldest first: `adctl dsp callbacks`. */
export async function listParkedCallbacks(db: Db, dspId?: string) {
  const rows = await db.dspCallback.findMany({
    where: { nextAttemptAt: { gte: PARKED_AT }, ...(dspId ? { dspId } : {}) },
    orderBy: { id: 'asc' },
    take: 1000,
  });
  return rows.map((r) => ({
    id: r.id.toString(),
    dsp_id: r.dspId,
    url: r.url,
    body: r.body,
    attempts: r.attempts,
    last_error: r.lastError,
    created_at: r.createdAt.toISOString(),
  }));
}

/**
 * Puts parked calls back in line (`adctl dsp callbacks retry`): due now with a
 * fresh run of attempts, e.g. once a DSP's endpoint or configured host is fixed.
 * Only parked calls move; a call still being retried keeps its backoff.
 */
export async function retryParkedCallbacks(db: Db, which: { ids: bigint[] } | { all: true; dspId?: string }): Promise<{ retried: number }> {
  const { count } = await db.dspCallback.updateMany({
    where: {
      nextAttemptAt: { gte: PARKED_AT },
      ...('ids' in which ? { id: { in: which.ids } } : which.dspId ? { dspId: which.dspId } : {}),
    },
    data: { attempts: 0, nextAttemptAt: new Date() },
  });
  return { retried: count };
}

/**
 * Retention (jobs/retention.ts): parked calls older than `days` are deleted, like the dead
 * letters they resemble (set aside for an operator, who has had `days` to retry them). Calls
 * still being retried are never touched. Returns how many went.
 */
export async function pruneParkedCallbacks(db: Db, days: number, now = Date.now()): Promise<number> {
  const { count } = await db.dspCallback.deleteMany({ where: { nextAttemptAt: { gte: PARKED_AT }, createdAt: { lt: new Date(now - days * 86_400_000) } } });
  return count;
}
