import { utcTimestamp, type Db } from '../../lib/db';
import type { CollectedEvent } from './event';
import { GroupCommit, ItemFailure } from '../../lib/group-commit';

/**
 * The durable inbox of accepted events (PostgreSQL `event_inbox`): a request is
 * answered only after its events are committed there. Writes go through a group
 * commit, so many requests share one INSERT (one transaction, one fsync).
 * The event pipeline workflow moves rows from here to ClickHouse.
 */
export interface InboxSubmission {
  organizationId: string;
  /** The rate-limit budget the events count against (per API key). */
  apiKeyId: string;
  receivedAt: Date;
  ipAddress: string;
  /** The request's events as JSON text (serializeEvents): serialized by the request itself, before it joins a flush. */
  events: string[];
}

/**
 * Each event's stored JSON text. Called by the request (its events already
 * checked and bounded by parseEvent): a failure here is that request's own.
 */
export const serializeEvents = (events: CollectedEvent[]): string[] => events.map((event) => JSON.stringify(event));

/** A per-key budget check for `cost` events; the edge supplies the PostgreSQL rate limiter. */
export type EventBudget<V extends { allowed: boolean }> = (apiKeyId: string, cost: number) => Promise<V>;

export type InboxOutcome<V> = { stored: true; verdict: V } | { stored: false; verdict: V };

/**
 * The inbox's writer connection: a plain `pg` pool (`query(text, values)`). The hot
 * path skips Prisma, whose per-query overhead would cap a flush rate; Prisma
 * clients are accepted too (tests, tools).
 */
export type InboxStore = { query(statement: { name: string; text: string; values: unknown[] }): Promise<unknown> } | Db;

const INSERT_INBOX = `
  INSERT INTO event_inbox (organization_id, received_at, ip_address, event)
  SELECT * FROM unnest($1::uuid[], $2::timestamp[], $3::text[], $4::text[])`;

/** Inserts rows of many requests in one statement (arrays unnested server-side): one commit. */
export async function insertInboxRows(store: InboxStore, submissions: InboxSubmission[]): Promise<void> {
  const orgs: string[] = [];
  const times: string[] = [];
  const ips: string[] = [];
  const bodies: string[] = [];
  for (const s of submissions) {
    for (const event of s.events) {
      orgs.push(s.organizationId);
      times.push(utcTimestamp(s.receivedAt));
      ips.push(s.ipAddress);
      bodies.push(event);
    }
  }
  if (bodies.length === 0) return;
  const values = [orgs, times, ips, bodies];
  if ('$executeRawUnsafe' in store) await store.$executeRawUnsafe(INSERT_INBOX, ...values);
  // Named: each pooled connection parses and plans the insert once, not once per flush.
  else await store.query({ name: 'insert-event-inbox', text: INSERT_INBOX, values });
}

export function createInboxWriter<V extends { allowed: boolean }>(
  store: InboxStore,
  budget: EventBudget<V>,
  options = { maxBatch: 2000, maxConcurrentFlushes: 2 },
) {
  const writer = new GroupCommit<InboxSubmission, InboxOutcome<V>>(async (submissions) => {
    const verdicts = await budgetsOf(submissions, budget);
    const allowed = submissions.filter((_, i) => verdicts[i].allowed);
    const failures = await insertIsolatingFailures(store, allowed);
    return submissions.map((s, i) => failures.get(s) ?? { stored: verdicts[i].allowed, verdict: verdicts[i] });
  }, options);
  return { submit: (s: InboxSubmission) => writer.submit(s) };
}

/**
 * Inserts the submissions in one statement; if that fails, each on its own,
 * so a failure fails only the requests it belongs to (their budget was
 * counted once, above). Returns the failed submissions.
 */
async function insertIsolatingFailures(store: InboxStore, submissions: InboxSubmission[]): Promise<Map<InboxSubmission, ItemFailure>> {
  const failures = new Map<InboxSubmission, ItemFailure>();
  try {
    await insertInboxRows(store, submissions);
  } catch (err) {
    if (submissions.length === 1) failures.set(submissions[0], new ItemFailure(err));
    else {
      for (const s of submissions) {
        try {
          await insertInboxRows(store, [s]);
        } catch (own) {
          failures.set(s, new ItemFailure(own));
        }
      }
    }
  }
  return failures;
}

/**
 * One budget check per key per flush for all its events; if the key's whole
 * group does not fit, its requests are checked one by one so those that fit pass.
 */
async function budgetsOf<V extends { allowed: boolean }>(submissions: InboxSubmission[], budget: EventBudget<V>): Promise<V[]> {
  const verdicts = new Array<V>(submissions.length);
  const byKey = new Map<string, number[]>();
  submissions.forEach((s, i) => {
    const indexes = byKey.get(s.apiKeyId);
    // Appended in place: copying the list per request made a flush quadratic in its size.
    if (indexes) indexes.push(i);
    else byKey.set(s.apiKeyId, [i]);
  });
  for (const [key, indexes] of byKey) {
    const cost = indexes.reduce((n, i) => n + submissions[i].events.length, 0);
    const group = await budget(key, cost);
    if (group.allowed || indexes.length === 1) {
      for (const i of indexes) verdicts[i] = group;
      continue;
    }
    for (const i of indexes) verdicts[i] = await budget(key, submissions[i].events.length);
  }
  return verdicts;
}
