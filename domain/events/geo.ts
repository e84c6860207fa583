import type { GeoLookup } from './enrich';

/** geoip-lite holds its ~100 MB database in memory: loaded on first use, in the worker only. */
let geoip: typeof import('geoip-lite') | undefined;

/** The offline IP database lookup of geoip-lite; null for unknown addresses (loopback, private). */
export const geoLookup: GeoLookup = (ip) => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded synchronously on first use, as said above
  geoip ??= require('geoip-lite') as typeof import('geoip-lite');
  const found = geoip.lookup(ip);
  if (!found) return null;
  const [lat, lon] = found.ll ?? [];
  return { country: found.country ?? '', region: found.region ?? '', city: found.city ?? '', lat: lat ?? null, lon: lon ?? null };
};
