/**
 * IANA time zone names from requests (the auction's `timezone`, insights'
 * date ranges). Anything cached per zone is keyed by a name from Intl's own
 * list (a closed set of a few hundred): another spelling (`america/new_york`,
 * `US/Eastern`) is resolved on every use and never cached, so no request can
 * grow the process.
 */
export const MAX_TIME_ZONE_LENGTH = 64;

/** The names Intl lists, and UTC (which it accepts but does not list). */
const KNOWN = new Set([...Intl.supportedValuesOf('timeZone'), 'UTC']);
/** Canonical spellings of the known names, filled as they are used (bounded by KNOWN). */
const resolvedKnown = new Map<string, string>();

function resolve(name: string): string | null {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** The canonical name of a zone Intl knows, or null (unknown, or longer than MAX_TIME_ZONE_LENGTH). */
export function canonicalTimeZone(name: string): string | null {
  if (name.length === 0 || name.length > MAX_TIME_ZONE_LENGTH) return null;
  if (!KNOWN.has(name)) return resolve(name);
  let canonical = resolvedKnown.get(name);
  if (canonical === undefined) resolvedKnown.set(name, (canonical = resolve(name)!));
  return canonical;
}

/** Whether Intl knows the zone: a set lookup for the names it lists, as requests almost always spell them. */
export const isTimeZone = (name: string): boolean => KNOWN.has(name) || canonicalTimeZone(name) !== null;
