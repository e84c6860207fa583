/**
 * IANA time zone names from requests (the auction's `timezone`, insights'
 * date ranges). Anything cached per zone is keyed by the canonical name Intl
 * resolves a spelling to (`america/new_york`, `US/Eastern` -> `America/New_York`):
 * a closed set of a few hundred names, however many spellings requests send.
 */
export const MAX_TIME_ZONE_LENGTH = 64;

const CANONICAL = new Set(Intl.supportedValuesOf('timeZone'));

/** The canonical name of a zone Intl knows, or null (unknown, or longer than MAX_TIME_ZONE_LENGTH). */
export function canonicalTimeZone(name: string): string | null {
  if (name.length === 0 || name.length > MAX_TIME_ZONE_LENGTH) return null;
  if (CANONICAL.has(name)) return name;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

export const isTimeZone = (name: string) => canonicalTimeZone(name) !== null;
