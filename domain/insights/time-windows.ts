/**
 * Time windows of an insights request: `time_ranges[]` entries (unix, date and
 * hour ranges in IANA time zones) resolved to UTC instants, and the UTC
 * buckets reports are cut into. Pure functions over Unix seconds; zone math
 * uses Intl only (no date library): a local wall-clock time is turned into an
 * instant by looking up the zone's offset, so daylight-saving days come out as
 * the 23 or 25 hours they really are.
 */
import { z } from 'zod';
import { DomainError } from '../errors';
import { canonicalTimeZone, isTimeZone, MAX_TIME_ZONE_LENGTH } from '../../lib/time-zones';

export const HOUR = 3600;
export const DAY = 86_400;
export const MAX_WINDOW_DAYS = 366;
export const MAX_HOURLY_WINDOW_HOURS = 25;
/** More windows than this in one request is `invalid_time_range` (each may span 366 days). */
export const MAX_WINDOWS = 20;

/** 9999-12-31T23:59:59Z: the last instant a four-digit date can name. */
const MAX_UNIX = 253_402_300_799;

/** A half-open interval of Unix seconds, `[start, end)`. */
export interface TimeWindow {
  start: number;
  end: number;
}

export const timeRangeSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('unix_range'), start: z.number().int().min(0).max(MAX_UNIX), end: z.number().int().min(0).max(MAX_UNIX) }).strict(),
  z
    .object({
      type: z.literal('date_range'),
      since: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
      until: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
      timezone: z.string().max(MAX_TIME_ZONE_LENGTH).optional(),
    })
    .strict(),
  z
    .object({
      type: z.literal('hour_range'),
      since: z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}$/),
      until: z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}$/),
      timezone: z.string().max(MAX_TIME_ZONE_LENGTH).optional(),
    })
    .strict(),
]);
export type TimeRange = z.infer<typeof timeRangeSchema>;

const invalidRange = (message: string, param: string) => new DomainError('invalid_time_range', message, param);

// ---------------------------------------------------------------------------
// Zones
// ---------------------------------------------------------------------------

/** One formatter per canonical zone (lib/time-zones.ts): a closed set, whatever spellings requests use. */
const formatters = new Map<string, Intl.DateTimeFormat>();

/** How many zone formatters are held (bounded by the canonical zones; tests check it). */
export const cachedZoneFormatters = () => formatters.size;

/** The Intl formatter of an IANA zone, or null for a zone Intl does not know. */
function zoneFormatter(timeZone: string): Intl.DateTimeFormat | null {
  const canonical = canonicalTimeZone(timeZone);
  if (canonical === null) return null;
  let formatter = formatters.get(canonical);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: canonical,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(canonical, formatter);
  }
  return formatter;
}

/** The zone's offset from UTC at instant `t` (seconds east of Greenwich). */
export function zoneOffset(t: number, timeZone: string): number {
  const parts = Object.fromEntries(
    zoneFormatter(timeZone)!
      .formatToParts(new Date(t * 1000))
      .map((p) => [p.type, p.value]),
  );
  return utcSeconds(+parts.year, +parts.month, +parts.day, +parts.hour, +parts.minute, +parts.second) - t;
}

/** Unix seconds of a UTC calendar time (setUTCFullYear, not Date.UTC: that one reads years 0-99 as 1900-1999). */
function utcSeconds(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, minute, second);
  return d.getTime() / 1000;
}

/**
 * The instant of a local wall-clock time (given as Unix seconds of that wall
 * time read as UTC). An ambiguous time (the repeated hour when clocks go back)
 * is its earlier instant; a time skipped when clocks go forward moves forward
 * by the gap, as Temporal's `compatible` disambiguation does.
 */
export function wallTimeToInstant(wall: number, timeZone: string): number {
  const before = zoneOffset(wall - DAY, timeZone);
  const after = zoneOffset(wall + DAY, timeZone);
  const candidates = [...new Set([wall - before, wall - after])].filter((t) => t + zoneOffset(t, timeZone) === wall);
  if (candidates.length > 0) return Math.min(...candidates);
  return wall - before;
}

// ---------------------------------------------------------------------------
// Parsing time_ranges[] entries
// ---------------------------------------------------------------------------

/** `YYYY-MM-DD` (and optional `THH`) as Unix seconds of that wall time read as UTC; null if not a real date. */
function wallTime(text: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}))?$/.exec(text);
  if (!m) return null;
  const [year, month, day, hour] = [+m[1], +m[2], +m[3], m[4] === undefined ? 0 : +m[4]];
  if (year < 1 || month < 1 || month > 12 || day < 1 || hour > 23) return null;
  const seconds = utcSeconds(year, month, day, hour);
  const back = new Date(seconds * 1000);
  if (back.getUTCFullYear() !== year || back.getUTCMonth() !== month - 1 || back.getUTCDate() !== day) return null;
  return seconds;
}

/**
 * One `time_ranges[]` entry (a JSON string) as a UTC window. `until` is
 * inclusive for date and hour ranges (the last day or hour in the window);
 * `end` of a unix range is exclusive. Checks the spec's rules in order:
 * malformed or unknown zone (`invalid_time_range`), end not after start
 * (`invalid_time_range`), over 366 days (`range_too_wide`), hourly over 25
 * hours (`hourly_range_too_wide`).
 */
export function parseTimeRange(json: string, param: string, hourly: boolean): TimeWindow {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw invalidRange('A time range must be a JSON object', param);
  }
  const parsed = timeRangeSchema.safeParse(value);
  if (!parsed.success) {
    throw invalidRange(
      'A time range is { type: unix_range, start, end }, { type: date_range, since, until, timezone? } or { type: hour_range, since, until, timezone? }',
      param,
    );
  }
  const range = parsed.data;
  let window: TimeWindow;
  let wallSpan: number;
  if (range.type === 'unix_range') {
    window = { start: range.start, end: range.end };
    wallSpan = range.end - range.start;
  } else {
    const timeZone = range.timezone ?? 'UTC';
    if (!isTimeZone(timeZone)) throw invalidRange(`Unknown time zone: ${timeZone}`, param);
    const since = wallTime(range.since);
    const until = wallTime(range.until);
    if (since === null || until === null) throw invalidRange('since and until must be real calendar dates', param);
    // `until` names the last day (hour) inside the window: the window ends where the next one starts.
    const untilEnd = until + (range.type === 'date_range' ? DAY : HOUR);
    window = { start: wallTimeToInstant(since, timeZone), end: wallTimeToInstant(untilEnd, timeZone) };
    // Calendar length: 366 local days fit whatever daylight saving does inside them.
    wallSpan = untilEnd - since;
  }
  if (window.end <= window.start) throw invalidRange('The end of a time range must be after its start', param);
  if (wallSpan > MAX_WINDOW_DAYS * DAY) throw new DomainError('range_too_wide', `A time range may span at most ${MAX_WINDOW_DAYS} days`, param);
  // Real elapsed time: a 25-hour daylight-saving day fits, nothing longer does.
  if (hourly && window.end - window.start > MAX_HOURLY_WINDOW_HOURS * HOUR) {
    throw new DomainError('hourly_range_too_wide', `With hourly granularity a time range may span at most ${MAX_HOURLY_WINDOW_HOURS} hours`, param);
  }
  return window;
}

/**
 * The window when `time_ranges[]` is absent: the trailing 30 UTC days, today
 * included; with hourly granularity (whose windows are at most 25 hours) the
 * trailing 24 UTC hours, the current one included.
 */
export function defaultWindow(now: number, hourly: boolean): TimeWindow {
  if (hourly) {
    const end = Math.floor(now / HOUR) * HOUR + HOUR;
    return { start: end - 24 * HOUR, end };
  }
  const end = Math.floor(now / DAY) * DAY + DAY;
  return { start: end - 30 * DAY, end };
}

/** Windows may not overlap: a bucket (and so a row id) would be reported twice. */
export function checkDisjoint(windows: TimeWindow[], param: string): void {
  const sorted = [...windows].sort((a, b) => a.start - b.start);
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i].start < sorted[i - 1].end) throw invalidRange('Time ranges must not overlap', param);
  }
}

// ---------------------------------------------------------------------------
// Buckets
// ---------------------------------------------------------------------------

export type Granularity = 'hourly' | 'daily' | 'monthly' | 'none';

/**
 * Which stored buckets a window counts: a bucket (an hour of own supply, a day
 * of external supply) belongs to the window its midpoint falls in. Windows
 * on whole hours (every zone but the half-hour ones) count exactly their own
 * hours; back-to-back windows never share or drop a bucket.
 * Returns the first and the end (exclusive) bucket start, multiples of `size`.
 */
export function storedBucketRange(window: TimeWindow, size: number): { from: number; to: number } {
  const firstStart = (t: number) => Math.ceil((t - size / 2) / size) * size;
  return { from: firstStart(window.start), to: firstStart(window.end) };
}

/** The UTC report bucket `[start, end)` a stored time falls in (monthly: the calendar month). */
export function reportBucket(t: number, granularity: Exclude<Granularity, 'none'>): TimeWindow {
  switch (granularity) {
    case 'hourly': {
      const start = Math.floor(t / HOUR) * HOUR;
      return { start, end: start + HOUR };
    }
    case 'daily': {
      const start = Math.floor(t / DAY) * DAY;
      return { start, end: start + DAY };
    }
    case 'monthly': {
      const d = new Date(t * 1000);
      return { start: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 1000, end: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 1000 };
    }
  }
}

/** `readable_time` of a UTC bucket start: `YYYY-MM-DDTHH`, `YYYY-MM-DD` or `YYYY-MM`. */
export function readableTime(start: number, granularity: Exclude<Granularity, 'none'>): string {
  const iso = new Date(start * 1000).toISOString();
  switch (granularity) {
    case 'hourly':
      return iso.slice(0, 13);
    case 'daily':
      return iso.slice(0, 10);
    case 'monthly':
      return iso.slice(0, 7);
  }
}
