import { isIP } from 'node:net';
import { CONSENT_REQUIRED_COUNTRIES } from '../countries-iso3';

/**
 * What an event's `consent` object allows us to keep (the spec leaves its
 * fields "not shown"; docs/api-behaviour.md, "Personal data and retention", documents ours, after Google's
 * consent mode): `ad_storage` is `granted` or `denied` (true / false too), and
 * `gdpr` (or `gdpr_applies`) true or 1 says consent is required for the user.
 *
 * The full IP address and the raw user agent are stored only when ad storage is
 * granted, or when nothing is said and consent is not required. Consent is
 * required when the event says so, or when its IP address locates the user in
 * a country whose law requires it (the EEA, the UK and Switzerland). Otherwise
 * the IP address is truncated (IPv4 to its /24, IPv6 to its /48) and the raw
 * user agent dropped; its parsed browser, OS and device stay.
 */

const granted = (value: unknown) => value === 'granted' || value === true;
const denied = (value: unknown) => value === 'denied' || value === false;
const says = (value: unknown) => value === true || value === 1 || value === '1' || value === 'true';

/** Whether the event may keep its full IP address and raw user agent. */
export function mayKeepIdentifiers(consent: Record<string, unknown> | undefined, country: string): boolean {
  const adStorage = consent?.ad_storage;
  if (granted(adStorage)) return true;
  if (denied(adStorage)) return false;
  const required = says(consent?.gdpr) || says(consent?.gdpr_applies) || CONSENT_REQUIRED_COUNTRIES.has(country);
  return !required;
}

/** An IPv4 address to its /24 (`203.0.113.0`), an IPv6 address to its /48; anything else as it is. */
export function truncateIp(address: string): string {
  const version = isIP(address);
  if (version === 4) return address.replace(/\.\d+$/, '.0');
  if (version !== 6) return address;
  const groups = expandIpv6(address);
  return `${groups
    .slice(0, 3)
    .map((g) => g.toString(16))
    .join(':')}::`;
}

/** The eight 16-bit groups of an IPv6 address (an embedded IPv4 tail read as two groups). */
function expandIpv6(address: string): number[] {
  let text = address.toLowerCase().split('%')[0];
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number);
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const parse = (part: string | undefined) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const left = parse(head);
  const right = parse(tail);
  return tail === undefined ? left : [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}
