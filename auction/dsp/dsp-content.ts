import { LRUCache } from 'lru-cache';
import { BidRejection, type NonBidReason } from '../non-bid';

/**
 * Every string a DSP sends that we keep or pass on (bid ids, creative texts,
 * URLs) goes through here: what reaches a chat host, a tracking token or the
 * auction log is well-formed Unicode, bounded, and for URLs normalized. The
 * caps are the spec's where it has them (OpenRTB asset `len`s, applied to
 * native creatives too) and ours where it is silent (docs/api-behaviour.md, "Auction").
 */
export const DSP_LIMITS = {
  /** A bid id travels in tracking tokens (bid_id <= 256) and the render call. */
  bidId: 256,
  description: 200,
  advertiser: 50,
  ctaText: 15,
  /** A host name. */
  domain: 253,
  /** Any creative URL, as normalized. */
  url: 2048,
} as const;

const reject = (reason: NonBidReason, detail: string): never => {
  throw new BidRejection(reason, detail);
};

/** Control characters (a newline is allowed only where multi-line text is, `multiline`). */
const CONTROL = /[\u0000-\u001f\u007f]/;
const CONTROL_BUT_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f]/;

/** A DSP's bid id: a non-empty, well-formed string of at most DSP_LIMITS.bidId characters, without control characters. */
export function bidIdOf(value: unknown, where: string): string {
  if (typeof value !== 'string' || value === '') return reject('invalid_response', `${where} must be a non-empty string`);
  if (value.length > DSP_LIMITS.bidId) reject('invalid_response', `${where} is longer than ${DSP_LIMITS.bidId} characters`);
  if (!value.isWellFormed() || CONTROL.test(value)) reject('invalid_response', `${where} must be well-formed text without control characters`);
  return value;
}

/** A creative text: well-formed, no control characters (newlines only when `multiline`), at most `max` characters. */
export function creativeText(value: string, where: string, max: number, multiline = false): string {
  if (!value.isWellFormed() || (multiline ? CONTROL_BUT_NEWLINE : CONTROL).test(value))
    reject('invalid_ad_data', `${where} must be well-formed text without control characters`);
  if (value.length > max && codePoints(value) > max) reject('asset_too_long', `${where} is longer than ${max} characters`);
  return value;
}

/** Characters as `[...value].length` counts them (a lone surrogate is one), without the array; never more than `value.length`. */
export function codePoints(value: string): number {
  let n = value.length;
  for (let i = 0; i < value.length; i += 1) {
    const unit = value.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < value.length) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        n -= 1;
        i += 1;
      }
    }
  }
  return n;
}

/**
 * A creative URL as it is served: `https:` only, no user name or password,
 * normalized by the URL parser (`href`: quotes, angle brackets and spaces
 * percent-encoded, tabs and newlines dropped), at most DSP_LIMITS.url long.
 */
export function creativeUrl(value: string, where: string): string {
  // DSPs send the same creatives over and over: a URL already served is served again as it was normalized.
  const known = servedUrls.get(value);
  if (known !== undefined) return known;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return reject('invalid_ad_data', `${where} is not an absolute URL`);
  }
  if (url.protocol !== 'https:') reject('not_secure', `${where} must be an https URL`);
  if (url.username !== '' || url.password !== '') reject('invalid_ad_data', `${where} must not carry a user name or password`);
  const href = url.href;
  if (href.length > DSP_LIMITS.url) reject('invalid_ad_data', `${where} is longer than ${DSP_LIMITS.url} characters`);
  if (value.length <= DSP_LIMITS.url) servedUrls.set(value, href);
  return href;
}
const servedUrls = new LRUCache<string, string>({ max: 2_000 });

/** An advertiser domain (creative `domain`, OpenRTB `adomain`): a host name, as the URL parser spells it (lower case, punycode). */
export function creativeDomain(value: string, where: string): string {
  const text = creativeText(value, where, DSP_LIMITS.domain).trim();
  let host = '';
  try {
    host = /[/?#@:\\\s]/.test(text) ? '' : new URL(`https://${text}`).hostname;
  } catch {
    /* not a host name */
  }
  if (host === '' || host.length > DSP_LIMITS.domain) reject('invalid_ad_data', `${where} must be a domain name`);
  return host;
}

/**
 * `text` cut to at most `max` UTF-16 units without splitting a surrogate pair,
 * and made well-formed: for free text we log (a DSP's error detail).
 */
export function boundedText(text: string, max: number): string {
  let end = Math.min(text.length, max);
  const last = text.charCodeAt(end - 1);
  if (end < text.length && last >= 0xd800 && last <= 0xdbff) end -= 1; // a high surrogate whose pair is past the cut
  return text.slice(0, end).toWellFormed();
}
