import { UAParser } from 'ua-parser-js';
import { LRUCache } from 'lru-cache';
import type { CollectedEvent } from './event';
import { mayKeepIdentifiers, truncateIp } from './consent';

/** What the pipeline knows about an inbox row besides the event itself. */
export interface InboxRow {
  id: bigint;
  organizationId: string;
  receivedAt: Date;
  ipAddress: string;
  event: CollectedEvent;
}

export interface GeoLocation {
  country: string;
  region: string;
  city: string;
  lat: number | null;
  lon: number | null;
}
/** An offline IP database lookup (geoip-lite in the worker); null when the address is unknown. */
export type GeoLookup = (ip: string) => GeoLocation | null;

/** A row of `collected_events`, as inserted (JSONEachRow). */
export interface CollectedEventRow {
  inbox_id: string;
  organization_id: string;
  event_id: string;
  event_name: string;
  tag_id: string;
  timestamp: string;
  received_at: string;
  channel: 'server';
  page_url: string;
  referrer: string;
  user_agent: string;
  session_id: string;
  client_id: string;
  click_id: string;
  impression_id: string;
  bid_id: string;
  attribution_type: string;
  consent: string;
  params: string;
  ip_address: string;
  geo_country: string;
  geo_region: string;
  geo_city: string;
  geo_lat: number | null;
  geo_lon: number | null;
  ua_browser: string;
  ua_os: string;
  ua_device: string;
}

/** `page_url`'s host name, or '' when it is not an absolute URL. */
export function hostOf(pageUrl: string | undefined): string {
  if (!pageUrl) return '';
  try {
    return new URL(pageUrl).hostname;
  } catch {
    return '';
  }
}

/** ua-parser-js names the device type only for non-desktop devices; a parsed desktop UA reads `desktop`. */
function parseUserAgentUncached(userAgent: string): UserAgentFields {
  const ua = new UAParser(userAgent).getResult();
  const browser = ua.browser.name ?? '';
  const os = ua.os.name ?? '';
  const device = ua.device.type ?? (browser || os ? 'desktop' : '');
  return { browser, os, device };
}

export interface UserAgentFields {
  browser: string;
  os: string;
  device: string;
}

/**
 * Parsed user agents, by string. Real traffic repeats a few thousand user-agent
 * strings, and ua-parser-js runs dozens of regular expressions per parse: it was
 * the pipeline worker's largest CPU cost (bench:events' worker profile), in
 * bursts that competed with the api. Bounded in entries (the least recently used goes)
 * and in key size: ua-parser-js reads only the first UA_MAX_LENGTH characters,
 * so that prefix is the key.
 */
const uaCache = new LRUCache<string, UserAgentFields>({ max: 5_000 });
const UA_MAX_LENGTH = 500; // ua-parser-js 1.x

export function parseUserAgent(userAgent: string | undefined): UserAgentFields {
  if (!userAgent) return { browser: '', os: '', device: '' };
  const key = userAgent.slice(0, UA_MAX_LENGTH);
  let fields = uaCache.get(key);
  if (!fields) {
    fields = parseUserAgentUncached(key);
    uaCache.set(key, fields);
  }
  return fields;
}

const clickhouseTime = (d: Date) => `${d.toISOString().slice(0, 19)}Z`;

/**
 * The stored row: `channel` is always `server`; `tag_id` falls back to the
 * `page_url` host; `timestamp` to the receive time; geo from the request IP;
 * `ua_*` from the event's `user_agent`. Without consent to keep them
 * (consent.ts), the IP address is stored truncated (and located as such) and
 * the raw user agent not at all.
 */
export function enrich(row: InboxRow, geo: GeoLookup): CollectedEventRow {
  const e = row.event;
  const located = row.ipAddress ? geo(row.ipAddress) : null;
  const keep = mayKeepIdentifiers(e.consent, located?.country ?? '');
  const ipAddress = keep ? row.ipAddress : truncateIp(row.ipAddress);
  const location = keep || !ipAddress ? located : geo(ipAddress);
  const ua = parseUserAgent(e.user_agent);
  return {
    inbox_id: row.id.toString(),
    organization_id: row.organizationId,
    event_id: e.event_id ?? '',
    event_name: e.event_name,
    tag_id: e.tag_id ?? hostOf(e.page_url),
    timestamp: clickhouseTime(e.timestamp !== undefined ? new Date(e.timestamp * 1000) : row.receivedAt),
    received_at: clickhouseTime(row.receivedAt),
    channel: 'server',
    page_url: e.page_url ?? '',
    referrer: e.referrer ?? '',
    user_agent: keep ? (e.user_agent ?? '') : '',
    session_id: e.session_id ?? '',
    client_id: e.client_id ?? '',
    click_id: e.click_id ?? '',
    impression_id: e.impression_id ?? '',
    bid_id: e.bid_id ?? '',
    attribution_type: e.attribution_type ?? '',
    consent: e.consent ? JSON.stringify(e.consent) : '{}',
    params: e.params ? JSON.stringify(e.params) : '{}',
    ip_address: ipAddress,
    geo_country: location?.country ?? '',
    geo_region: location?.region ?? '',
    geo_city: location?.city ?? '',
    geo_lat: location?.lat ?? null,
    geo_lon: location?.lon ?? null,
    ua_browser: ua.browser,
    ua_os: ua.os,
    ua_device: ua.device,
  };
}
