import { isIP } from 'node:net';

/** `::ffff:1.2.3.4` (IPv4 on a dual-stack socket) reads as `1.2.3.4`. */
export function normalizeIp(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1] : address;
}

/**
 * The event's `ip_address`: the socket peer, unless the peer is one of the
 * configured trusted proxies, in which case the first `X-Forwarded-For` hop (the
 * original client as the proxy received it). Anything unparsable falls back to the peer.
 */
export function clientIp(peer: string | undefined, forwardedFor: string | string[] | undefined, trustedProxies: ReadonlySet<string>): string {
  const socketIp = normalizeIp(peer ?? '');
  if (!trustedProxies.has(socketIp) || forwardedFor === undefined) return socketIp;
  const header = Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor;
  const first = normalizeIp(header.split(',')[0].trim());
  return isIP(first) ? first : socketIp;
}
