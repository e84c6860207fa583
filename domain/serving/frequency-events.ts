import { createHash } from 'node:crypto';
import type { Pool } from 'pg';
import { utcTimestamp } from '../../lib/db';

/**
 * The shared store of frequency caps (`frequency_events`): who was shown which
 * campaign, by publisher and hashed user and conversation. Auctions write their
 * wins here (provisional), the delivery ledger the impressions its view pixel
 * records (domain/delivery/charge.sql); every auction process reads
 * what was recorded since its last look (auction/inhouse/frequency-caps.ts).
 */
export interface FrequencyEvent {
  id?: string;
  kind: 'win' | 'impression';
  publisherId: string;
  userKey: string;
  chatKey: string;
  /** Null for an ad a DSP won: it counts toward the conversation's density only. */
  campaignId: string | null;
  auctionId: string;
  atMs: number;
  /** The turn the ad was shown at (a hash of the conversation's last user message; 0: none). */
  turnMark: number;
}

/**
 * A user's or a conversation's key: a hash of the publisher's own id (the
 * request refuses e-mail addresses as user ids; the key never leaves our stores
 * and tokens as the id itself).
 */
export function audienceKey(kind: 'user' | 'chat', publisherId: string, id: string): string {
  return createHash('sha256').update(`${kind}\u0000${publisherId}\u0000${id}`).digest('base64url').slice(0, 22);
}

export async function insertFrequencyEvents(pool: Pool, events: readonly FrequencyEvent[]): Promise<void> {
  if (events.length === 0) return;
  await pool.query(
    `INSERT INTO frequency_events (kind, publisher_id, user_key, chat_key, campaign_id, auction_id, at, turn_mark)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::uuid[], $6::text[], $7::timestamp[], $8::int[])`,
    [
      events.map((e) => e.kind),
      events.map((e) => e.publisherId),
      events.map((e) => e.userKey),
      events.map((e) => e.chatKey),
      events.map((e) => e.campaignId),
      events.map((e) => e.auctionId),
      events.map((e) => utcTimestamp(e.atMs)),
      events.map((e) => e.turnMark),
    ],
  );
}

type Row = {
  id: string;
  kind: 'win' | 'impression';
  publisher_id: string;
  user_key: string;
  chat_key: string;
  campaign_id: string | null;
  auction_id: string;
  turn_mark: number;
  at_ms: string;
  recorded_ms: string;
};

/** Events recorded at or after `sinceMs` (oldest first, at most `limit`), with when each was recorded. */
export async function frequencyEventsSince(pool: Pool, sinceMs: number, limit: number): Promise<{ event: FrequencyEvent; recordedMs: number }[]> {
  // The order names the table's columns: a bare `id` is the text output column, '10' before '9'.
  const { rows } = await pool.query<Row>(
    `SELECT id::text, kind, publisher_id, user_key, chat_key, campaign_id::text, auction_id, turn_mark,
            (extract(epoch FROM at) * 1000)::bigint::text AS at_ms, (extract(epoch FROM recorded_at) * 1000)::bigint::text AS recorded_ms
       FROM frequency_events f WHERE f.recorded_at >= $1::timestamp ORDER BY f.recorded_at, f.id LIMIT $2`,
    [utcTimestamp(sinceMs), limit],
  );
  return rows.map((r) => ({
    event: {
      id: r.id,
      kind: r.kind,
      publisherId: r.publisher_id,
      userKey: r.user_key,
      chatKey: r.chat_key,
      campaignId: r.campaign_id,
      auctionId: r.auction_id,
      atMs: Number(r.at_ms),
      turnMark: r.turn_mark,
    },
    recordedMs: Number(r.recorded_ms),
  }));
}

/** Rows older than the window they count in are of no use to any cap (the retention job): of one kind, or of both. */
export async function pruneFrequencyEvents(pool: Pool, olderThanMs: number, kind?: FrequencyEvent['kind']): Promise<number> {
  const { rowCount } = await pool.query('DELETE FROM frequency_events WHERE at < $1::timestamp AND ($2::text IS NULL OR kind = $2::text)', [
    utcTimestamp(olderThanMs),
    kind ?? null,
  ]);
  return rowCount ?? 0;
}
