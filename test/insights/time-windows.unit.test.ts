/**
 * Time windows as pure functions: IANA zones through daylight-saving gaps and
 * overlaps, half-hour zones and the midpoint rule, limits and defaults.
 */
import type { DomainError } from '../../domain/errors';
import { cachedZoneFormatters, defaultWindow, parseTimeRange, storedBucketRange, wallTimeToInstant } from '../../domain/insights/time-windows';
import { canonicalTimeZone } from '../../lib/time-zones';

const unix = (iso: string) => Date.parse(iso) / 1000;
const range = (value: object, hourly = false) => parseTimeRange(JSON.stringify(value), 'time_ranges[]', hourly);

test('local wall times: a skipped hour moves forward, a repeated hour takes its first occurrence', () => {
  expect(wallTimeToInstant(unix('2026-03-29T02:30:00Z'), 'Europe/Berlin')).toBe(unix('2026-03-29T01:30:00Z'));
  expect(wallTimeToInstant(unix('2026-10-25T02:30:00Z'), 'Europe/Berlin')).toBe(unix('2026-10-25T00:30:00Z'));
  expect(wallTimeToInstant(unix('2026-07-01T00:00:00Z'), 'America/Los_Angeles')).toBe(unix('2026-07-01T07:00:00Z'));
});

test('date and hour ranges: until is inclusive; DST days are 23 and 25 hours', () => {
  expect(range({ type: 'date_range', since: '2026-03-29', until: '2026-03-29', timezone: 'Europe/Berlin' })).toEqual({
    start: unix('2026-03-28T23:00:00Z'),
    end: unix('2026-03-29T22:00:00Z'),
  });
  expect(range({ type: 'date_range', since: '2026-11-01', until: '2026-11-01', timezone: 'America/New_York' })).toEqual({
    start: unix('2026-11-01T04:00:00Z'),
    end: unix('2026-11-02T05:00:00Z'),
  });
  expect(range({ type: 'hour_range', since: '2026-10-25T00', until: '2026-10-25T23', timezone: 'Europe/Berlin' }, true)).toEqual({
    start: unix('2026-10-24T22:00:00Z'),
    end: unix('2026-10-25T23:00:00Z'),
  });
  // Years below 100 are years below 100 (Date.UTC would read 0099 as 1999).
  expect(range({ type: 'date_range', since: '0099-01-01', until: '0099-01-01' }).start).toBe(new Date('0099-01-01T00:00:00Z').getTime() / 1000);
});

test('half-hour zones: each UTC hour counts in the window holding its midpoint, so back-to-back days share none', () => {
  const day1 = range({ type: 'date_range', since: '2026-05-01', until: '2026-05-01', timezone: 'Asia/Kolkata' });
  const day2 = range({ type: 'date_range', since: '2026-05-02', until: '2026-05-02', timezone: 'Asia/Kolkata' });
  expect(day1.start).toBe(unix('2026-04-30T18:30:00Z'));
  const hours1 = storedBucketRange(day1, 3600);
  const hours2 = storedBucketRange(day2, 3600);
  expect(hours1).toEqual({ from: unix('2026-04-30T18:00:00Z'), to: unix('2026-05-01T18:00:00Z') });
  expect(hours2.from).toBe(hours1.to);
  // Days of external supply: the UTC day whose noon is inside (Los Angeles' day is the same-dated UTC day).
  const la = range({ type: 'date_range', since: '2026-05-01', until: '2026-05-01', timezone: 'America/Los_Angeles' });
  expect(storedBucketRange(la, 86_400)).toEqual({ from: unix('2026-05-01T00:00:00Z'), to: unix('2026-05-02T00:00:00Z') });
});

test('limits and errors', () => {
  const code = (fn: () => unknown) => {
    try {
      fn();
      return null;
    } catch (err) {
      return (err as DomainError).code;
    }
  };
  expect(code(() => range({ type: 'date_range', since: '2024-01-01', until: '2024-12-31', timezone: 'Europe/Berlin' }))).toBeNull(); // 366 days
  expect(code(() => range({ type: 'date_range', since: '2024-01-01', until: '2025-01-01' }))).toBe('range_too_wide');
  expect(code(() => range({ type: 'unix_range', start: 0, end: 366 * 86_400 + 1 }))).toBe('range_too_wide');
  expect(code(() => range({ type: 'hour_range', since: '2026-03-01T00', until: '2026-03-02T00' }, true))).toBeNull(); // 25 hours
  expect(code(() => range({ type: 'hour_range', since: '2026-03-01T00', until: '2026-03-02T01' }, true))).toBe('hourly_range_too_wide');
  expect(code(() => range({ type: 'date_range', since: '2026-03-01', until: '2026-03-01', timezone: 'Europe/Nowhere' }))).toBe('invalid_time_range');
  expect(code(() => range({ type: 'unix_range', start: 10, end: 5 }))).toBe('invalid_time_range');
  expect(code(() => range({ type: 'unix_range', start: 0, end: 1e15 }))).toBe('invalid_time_range');
});

test('default windows: 30 whole UTC days, today included; hourly, the last 24 hours', () => {
  const now = unix('2026-05-10T13:20:00Z');
  expect(defaultWindow(now, false)).toEqual({ start: unix('2026-04-11T00:00:00Z'), end: unix('2026-05-11T00:00:00Z') });
  expect(defaultWindow(now, true)).toEqual({ start: unix('2026-05-09T14:00:00Z'), end: unix('2026-05-10T14:00:00Z') });
});

test('zones are cached by their canonical name only: 2,000 spellings of one zone hold one formatter; names over 64 characters are refused', () => {
  const day = (timezone: string) => range({ type: 'date_range', since: '2026-05-01', until: '2026-05-01', timezone });
  const expected = day('America/New_York');
  const before = cachedZoneFormatters();
  const zone = 'america/new_york';
  for (let i = 0; i < 2_000; i += 1) {
    // Every letter-case spelling of the zone, by the bits of i.
    const spelling = [...zone].map((ch, j) => ((i >> (j % 15)) & 1 ? ch.toUpperCase() : ch)).join('');
    expect(day(spelling)).toEqual(expected);
  }
  expect(cachedZoneFormatters()).toBeLessThanOrEqual(before + 1);
  expect(canonicalTimeZone('US/Eastern')).toBe('America/New_York');
  expect(canonicalTimeZone(`Europe/${'x'.repeat(58)}`)).toBeNull();
  expect(() => day(`Europe/${'x'.repeat(58)}`)).toThrow(expect.objectContaining({ code: 'invalid_time_range' }));
});
