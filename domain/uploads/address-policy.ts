import net from 'node:net';

/**
 * Which IP addresses the server may connect to when fetching a user-supplied
 * URL (SSRF guard). Only globally routable unicast is allowed.
 *
 * One table, decided by longest-prefix match: the two catch-all rows say what
 * is left over (all remaining IPv4 is global; IPv6 is global only inside
 * 2000::/3), every other row carves a special-purpose block out of them
 * (IANA IPv4/IPv6 Special-Purpose Address Registries).
 *
 * IPv6 forms that embed an IPv4 address (mapped, compatible, NAT64, 6to4,
 * Teredo) are rejected outright rather than classified by the embedded IPv4:
 * a public image host never needs them, and each one is a known way to smuggle
 * 127.0.0.1 or 10.x past a v4-only check. (Cost: hosts reachable only through
 * DNS64/NAT64 cannot be fetched.)
 */
const RANGES: ReadonlyArray<readonly [cidr: string, name: string, allowed?: true]> = [
  ['0.0.0.0/0', 'global unicast', true],
  ['0.0.0.0/8', '"this network"'],
  ['0.0.0.0/32', 'unspecified'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'carrier-grade NAT'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'IETF protocol assignments'],
  ['192.0.2.0/24', 'documentation (TEST-NET-1)'],
  ['192.88.99.0/24', '6to4 relay anycast'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation (TEST-NET-2)'],
  ['203.0.113.0/24', 'documentation (TEST-NET-3)'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
  ['255.255.255.255/32', 'broadcast'],

  ['::/0', 'reserved (not global unicast 2000::/3)'],
  ['2000::/3', 'global unicast', true],
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['::/96', 'IPv4-compatible'],
  ['::ffff:0:0/96', 'IPv4-mapped'],
  ['64:ff9b::/96', 'NAT64'],
  ['64:ff9b:1::/48', 'NAT64 (local-use)'],
  ['100::/64', 'discard-only'],
  ['2001::/32', 'Teredo'],
  ['2001:2::/48', 'benchmarking'],
  ['2001:10::/28', 'ORCHID'],
  ['2001:20::/28', 'ORCHIDv2'],
  ['2001:db8::/32', 'documentation'],
  ['2002::/16', '6to4'],
  ['3fff::/20', 'documentation'],
  ['5f00::/16', 'SRv6 SIDs'],
  ['fc00::/7', 'unique-local'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local'],
  ['ff00::/8', 'multicast'],
];

type Family = 4 | 6;
interface Range {
  family: Family;
  base: bigint;
  prefix: number;
  name: string;
  allowed: boolean;
}

const TABLE: Range[] = RANGES.map(([cidr, name, allowed]) => {
  const [ip, len] = cidr.split('/');
  const parsed = parseIp(ip)!;
  return { family: parsed.family, base: parsed.value, prefix: Number(len), name, allowed: allowed === true };
});

export type AddressVerdict = { allowed: true } | { allowed: false; reason: string };

export function classifyAddress(ip: string): AddressVerdict {
  const range = match(ip);
  if (!range) return { allowed: false, reason: 'not an IP address' };
  return range.allowed ? { allowed: true } : { allowed: false, reason: range.name };
}

/** 127/8 and ::1 only (the test-only loopback allowance; embedded forms don't count). */
export function isLoopback(ip: string): boolean {
  return match(ip)?.name === 'loopback';
}

/** The most specific table row containing `ip`, or null when `ip` is not an IP address. */
function match(ip: string): Range | null {
  const parsed = typeof ip === 'string' ? parseIp(ip) : null;
  if (!parsed) return null;
  let best: Range | null = null;
  for (const r of TABLE) {
    if (r.family !== parsed.family || (best && r.prefix <= best.prefix)) continue;
    const bits = parsed.family === 4 ? 32 : 128;
    if (parsed.value >> BigInt(bits - r.prefix) === r.base >> BigInt(bits - r.prefix)) best = r;
  }
  return best;
}

/** Text → family and numeric value; null when not a valid IPv4/IPv6 literal. */
function parseIp(text: string): { family: Family; value: bigint } | null {
  // A zone id (fe80::1%eth0) only scopes a link-local address; the address is what matters.
  const ip = text.includes(':') ? text.replace(/%.+$/s, '') : text;
  const family = net.isIP(ip);
  if (family === 4) return { family, value: ipv4ToBigint(ip) };
  if (family !== 6) return null;

  let groups = ip.split(':');
  // A dotted IPv4 tail (::ffff:1.2.3.4) stands for the last two 16-bit groups.
  const tail = groups[groups.length - 1];
  if (tail.includes('.')) {
    const v4 = ipv4ToBigint(tail);
    groups.splice(-1, 1, (v4 >> 16n).toString(16), (v4 & 0xffffn).toString(16));
  }
  // Expand "::" (at most one, guaranteed by net.isIP) into the missing zero groups.
  const gap = groups.indexOf('');
  if (gap !== -1) {
    const head = groups.slice(0, gap).filter(Boolean);
    const rest = groups.slice(gap).filter(Boolean);
    groups = [...head, ...Array<string>(8 - head.length - rest.length).fill('0'), ...rest];
  }
  return { family, value: groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n) };
}

function ipv4ToBigint(ip: string): bigint {
  return ip.split('.').reduce((acc, octet) => (acc << 8n) | BigInt(Number(octet)), 0n);
}
