/**
 * lib/clickhouse/sql.ts against the real ClickHouse server: every literal kind
 * round-trips, and no literal can change the statement around it (what needs
 * no server: clickhouse-sql.unit.test.ts).
 */
import { createClickhouse } from '../lib/clickhouse/client';
import { literal, sql, type SqlValue } from '../lib/clickhouse/sql';
import { config } from '../lib/config';
import { reportSql, reportWindow, type ReportQuery } from '../auction/reports/report';

const clickhouse = createClickhouse('default');
afterAll(() => clickhouse.close());

async function rows(query: string): Promise<Record<string, unknown>[]> {
  const result = await clickhouse.query({ query, format: 'JSONEachRow' });
  return result.json<Record<string, unknown>>();
}

describe('sql tag on ClickHouse', () => {
  test('a negative number after a minus is subtraction, not a comment', async () => {
    expect(sql`SELECT 5-${-1}`).toBe('SELECT 5-(-1)');
    expect(await rows(sql`SELECT 5-${-1} AS v, 1 AS after`)).toEqual([{ v: 6, after: 1 }]);
    // A filter on the same line after the value survives.
    expect(await rows(sql`SELECT count() AS n FROM numbers(10) WHERE number < 5-${-1} AND number > 3`)).toEqual([{ n: 2 }]);
  });

  test('negative bigints and floats after a minus too', async () => {
    expect(await rows(sql`SELECT 5-${-2n} AS a, 5-${-1.5} AS b, 5 -${-0.25} AS c, 1 AS after`)).toEqual([{ a: 7, b: 6.5, c: 5.25, after: 1 }]);
  });

  const strings = [
    'plain',
    "it's",
    'back\\slash',
    "\\'",
    "quote at end'",
    'new\nline',
    'tab\tcarriage\r',
    'nul\0byte',
    'bell\u0007del\u007f',
    "'; DROP TABLE x; --",
    'unicode é 🙂',
  ];
  test.each(strings)('string %j round-trips', async (value) => {
    expect(await rows(sql`SELECT ${value} AS v, 1 AS after`)).toEqual([{ v: value, after: 1 }]);
  });

  test.each([0, 1, -1, 42, -42, 2_147_483_648, -2_147_483_649, 1.5, -1.5, 0.001, -1e-7, 1e21])('number %p round-trips', async (value) => {
    expect(await rows(sql`SELECT ${value} AS v, 1 AS after`)).toEqual([{ v: value, after: 1 }]);
  });

  test.each([0n, 5n, -5n, 9_223_372_036_854_775_807n, -9_223_372_036_854_775_808n])('bigint %p round-trips', async (value) => {
    expect(await rows(sql`SELECT toString(${value}) AS v, 1 AS after`)).toEqual([{ v: value.toString(), after: 1 }]);
  });

  test('booleans, dates, null and arrays', async () => {
    const date = new Date('2026-01-02T03:04:05Z');
    const before1970 = new Date('1969-12-31T23:59:59Z');
    expect(await rows(sql`SELECT ${true} AS t, ${false} AS f, toUnixTimestamp(${date}) AS d, ${null} AS n, 1 AS after`)).toEqual([
      { t: 1, f: 0, d: date.getTime() / 1000, n: null, after: 1 },
    ]);
    expect(literal(before1970)).not.toContain('--');
    const values: SqlValue[] = [
      [1, -2, 3],
      ['a', "b'c", 'd\\e'],
      [-1.5, 2.5],
    ];
    for (const value of values) {
      expect(await rows(sql`SELECT ${value} AS v, 1 AS after`)).toEqual([{ v: value, after: 1 }]);
    }
  });
});

describe("the publisher report's SQL (auction/reports/report.ts) on ClickHouse", () => {
  const groupings = [undefined, 'source', 'format', 'country', 'category', 'language'] as const;
  const cases = (['daily', 'hourly'] as const).flatMap((granularity) => groupings.map((group_by) => ({ granularity, group_by })));
  test.each(cases)('%j runs, and a hostile publisher id stays a value', async ({ granularity, group_by }) => {
    const query: ReportQuery = { start_date: '2026-01-01', end_date: '2026-01-31', granularity, group_by };
    const text = reportSql(config.clickhouse.database, "p' OR 1=1 --", query, reportWindow(query));
    for (const statement of [text.auctions, text.delivery]) expect(await rows(statement)).toEqual([]);
  });

  test('a window outside DateTime (before 1970) is cut to it, not wrapped around', async () => {
    const query: ReportQuery = { start_date: '1969-12-01', end_date: '1970-01-01', granularity: 'daily' };
    const text = reportSql(config.clickhouse.database, 'p', query, reportWindow(query));
    expect(text.auctions).not.toContain('toDateTime(-');
    for (const statement of [text.auctions, text.delivery]) expect(await rows(statement)).toEqual([]);
  });
});
