import type { GeoLookup } from './enrich';

/** geoip-lite holds its ~100 MB database in memory: loaded by the worker at startup (loadGeoDatabase), elsewhere on first use. */
let geoip: typeof import('geoip-lite') | undefined;

/**
 * Loads the IP database now. The worker calls it before it reports ready: loading
 * is CPU-heavy, and on first use it stalled the worker's event loop inside the
 * first event batch after every start (bench/results.jsonl, 81210a8).
 */
export function loadGeoDatabase(): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded synchronously, when the process chooses
  geoip ??= require('geoip-lite') as typeof import('geoip-lite');
}

/** The offline IP database lookup of geoip-lite; null for unknown addresses (loopback, private). */
export const geoLookup: GeoLookup = (ip) => {
  loadGeoDatabase();
  const found = geoip!.lookup(ip);
  if (!found) return null;
  const [lat, lon] = found.ll ?? [];
  return { country: found.country ?? '', region: found.region ?? '', city: found.city ?? '', lat: lat ?? null, lon: lon ?? null };
};
