import { createHash } from 'node:crypto';
import type { ClickHouseClient } from '@clickhouse/client';
import { isIP } from 'node:net';
import { isbot } from 'isbot';
import { normalizeIp } from '../events/client-ip';
import { identifier, sql } from '../../lib/clickhouse/sql';
import { DELIVERY_TABLES } from './clickhouse-tables';

/**
 * General invalid traffic (GIVT, as the MRC's IVT guidelines define it),
 * decided here and nowhere else (docs/api-behaviour.md, "Invalid traffic"):
 *  - bot_user_agent: a known bot or crawler by its user agent (the `isbot`
 *    package's maintained list), on the ad request (no auction: no_fill
 *    `invalid_traffic`) and on the pixel or click;
 *  - user_agent_mismatch: a pixel or click without the auction's user agent;
 *  - network_mismatch: a pixel or click from another network than the ad
 *    request's user (IPv4 /24, IPv6 /48);
 *  - burst: more impressions a minute for one publisher from one user key or
 *    one network than a person makes (counted in the ledger, the one place
 *    every api copy shares: domain/delivery/charge.sql, with the
 *    thresholds below).
 * An invalid impression or click is recorded with its reason and charged nothing.
 */
export const INVALID_TRAFFIC_REASONS = ['bot_user_agent', 'user_agent_mismatch', 'network_mismatch', 'burst'] as const;
export type InvalidTrafficReason = (typeof INVALID_TRAFFIC_REASONS)[number];

/** Impressions a minute, per publisher, beyond which the rest of that minute's are a burst (config.delivery.burst). */
export interface BurstThresholds {
  /** Per hashed user key: one ad per chat answer, an answer every 2 s at the fastest reader. */
  perUserPerMinute: number;
  /** Per network (/24, /48): offices and carrier NATs put many people behind one. */
  perNetworkPerMinute: number;
}
export const DEFAULT_BURST_THRESHOLDS: BurstThresholds = { perUserPerMinute: 30, perNetworkPerMinute: 600 };

/** A known bot or crawler; an absent user agent is judged by the other rules. */
export function isBotUserAgent(userAgent: string | undefined): boolean {
  return !!userAgent && isbot(userAgent);
}

/** A short hash of a user agent (48 bits, base64url): what a tracking token carries instead of the string. */
export function userAgentHash(userAgent: string): string {
  return createHash('sha256').update(userAgent).digest('base64url').slice(0, 8);
}

/** The network an address belongs to: its IPv4 /24 (`a.b.c`) or IPv6 /48 (three hextets); '' when not an address. */
export function networkOf(address: string): string {
  const ip = normalizeIp(address);
  const family = isIP(ip);
  if (family === 4) return ip.slice(0, ip.lastIndexOf('.'));
  if (family !== 6) return '';
  const [head, tail = ''] = ip.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const hextets = ip.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return hextets
    .slice(0, 3)
    .map((h) => parseInt(h, 16).toString(16))
    .join(':');
}

/** What the auction binds into a delivery's tracking tokens: the user's user agent (hashed) and network. */
export function trafficBinding(userAgent: string, userIp: string): { ua_hash: string; net: string | undefined } {
  return { ua_hash: userAgentHash(userAgent), net: networkOf(userIp) || undefined };
}

/** A pixel's or click's request, as the tracker sees it. */
export interface TrackedRequest {
  userAgent: string | undefined;
  /** The client's address (the trusted proxies' X-Forwarded-For applied). */
  ip: string;
}

/**
 * Why a pixel or click of a delivery is invalid, or null. Tokens minted
 * without a binding (before it existed, at most a click token's lifetime ago)
 * are left to the burst rule.
 */
export function judgeTrackedRequest(binding: { ua_hash?: string; net?: string }, req: TrackedRequest): InvalidTrafficReason | null {
  if (binding.ua_hash === undefined) return null;
  if (isBotUserAgent(req.userAgent)) return 'bot_user_agent';
  if (userAgentHash(req.userAgent ?? '') !== binding.ua_hash) return 'user_agent_mismatch';
  if (binding.net !== undefined && networkOf(req.ip) !== binding.net) return 'network_mismatch';
  return null;
}

/** A campaign's invalid impressions and clicks since `since` (whole UTC hours), and both by reason. */
export interface InvalidTrafficCounts {
  invalid_impressions: number;
  invalid_clicks: number;
  invalid_traffic: Partial<Record<InvalidTrafficReason, number>>;
}

export async function campaignInvalidTraffic(ch: ClickHouseClient, database: string, campaignId: string, since: Date): Promise<InvalidTrafficCounts> {
  const result = await ch.query({
    query: `SELECT event_type, reason, sum(events) AS events FROM ${identifier(database)}.${DELIVERY_TABLES.invalid}
      WHERE ${sql`campaign_id = ${campaignId} AND hour >= toStartOfHour(${since})`}
      GROUP BY event_type, reason ORDER BY reason`,
    format: 'JSONEachRow',
  });
  const counts: InvalidTrafficCounts = { invalid_impressions: 0, invalid_clicks: 0, invalid_traffic: {} };
  for (const r of await result.json<{ event_type: string; reason: InvalidTrafficReason; events: string | number }>()) {
    const events = Number(r.events);
    if (r.event_type === 'impression') counts.invalid_impressions += events;
    if (r.event_type === 'click') counts.invalid_clicks += events;
    counts.invalid_traffic[r.reason] = (counts.invalid_traffic[r.reason] ?? 0) + events;
  }
  return counts;
}
