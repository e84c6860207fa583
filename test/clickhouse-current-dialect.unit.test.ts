/**
 * lib/clickhouse/dialect.ts without a server: the choice per version, asked
 * once per client, and what the builders write in each dialect (18.16's SQL as
 * it always was). clickhouse-current.test.ts runs that SQL on both engines.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import { CLICKHOUSE_18_16, clickhouseDialect, dialectOf } from '../lib/clickhouse/dialect';
import { attributedConversionsSql } from '../domain/events/conversions';
import { reportSql, reportWindow, type ReportQuery } from '../auction/reports/report';

const CURRENT = dialectOf('26.9.2.1');

test('versions before 20 take the 18.16 forms, later ones the current forms', () => {
  for (const version of ['18.16.1', '19.17.4.11']) {
    expect(dialectOf(version)).toMatchObject({ anyInnerJoin: 'ANY INNER JOIN' });
    expect(dialectOf(version).joinAlias('x')).toBe('');
  }
  for (const version of ['20.3.1', '24.8.4.13', '26.9.2.1 ']) {
    expect(dialectOf(version)).toMatchObject({ anyInnerJoin: 'SEMI LEFT JOIN' });
    expect(dialectOf(version).joinAlias('x')).toBe(' AS x');
  }
  expect(dialectOf('26.9.2.1 ').major).toBe(26);
  expect(CLICKHOUSE_18_16.major).toBe(18);
  expect(() => dialectOf('')).toThrow(/unrecognised/);
});

/** A client that answers `SELECT version()` with the versions given, one per call (an Error: that call fails). */
function fakeClient(...answers: (string | Error)[]) {
  const calls: string[] = [];
  const ch = {
    query: async ({ query }: { query: string }) => {
      calls.push(query);
      const answer = answers.shift();
      if (answer === undefined || answer instanceof Error) throw answer ?? new Error('no answer');
      return { json: async () => [{ version: answer }] };
    },
  } as unknown as ClickHouseClient;
  return { ch, calls };
}

test('the version is asked once per client and cached', async () => {
  const { ch, calls } = fakeClient('26.9.2.1', '18.16.1');
  const [a, b] = await Promise.all([clickhouseDialect(ch), clickhouseDialect(ch)]);
  expect(await clickhouseDialect(ch)).toBe(a);
  expect(b).toBe(a);
  expect(a.major).toBe(26);
  expect(calls).toEqual(['SELECT version() AS version']);
  // Another client (another server) is asked for itself.
  const other = fakeClient('18.16.1');
  expect((await clickhouseDialect(other.ch)).major).toBe(18);
});

test('a failed ask is not cached: the next call asks again', async () => {
  const { ch, calls } = fakeClient(new Error('connection refused'), '18.16.1');
  await expect(clickhouseDialect(ch)).rejects.toThrow('connection refused');
  expect((await clickhouseDialect(ch)).major).toBe(18);
  expect(calls).toHaveLength(2);
});

describe('what the builders write per dialect', () => {
  const attribution = { organizationId: 'o', start: new Date('2026-01-01T00:00:00Z'), end: new Date('2026-01-02T00:00:00Z'), database: 'db' };

  test('conversions: ANY INNER JOIN without aliases on 18.16 (the default), SEMI LEFT JOIN with aliases on current releases', () => {
    const legacy = attributedConversionsSql(attribution);
    expect(attributedConversionsSql({ ...attribution, dialect: CLICKHOUSE_18_16 })).toBe(legacy);
    expect(legacy).toMatch(/\)\n\s+ANY INNER JOIN \(/);
    expect(legacy).toMatch(/\) USING \(organization_id, attribution_key\)/);
    const current = attributedConversionsSql({ ...attribution, dialect: CURRENT });
    expect(current).toMatch(/\) AS conversion\n\s+SEMI LEFT JOIN \(/);
    expect(current).toMatch(/\) AS delivery_row USING \(organization_id, attribution_key\)/);
    expect(current).not.toContain('ANY INNER JOIN');
  });

  test.each(['format', 'category', 'language'] as const)('publisher report by %s: the joined subqueries are aliased on current releases only', (group_by) => {
    const query: ReportQuery = { start_date: '2026-01-01', end_date: '2026-01-02', granularity: 'daily', group_by };
    const legacy = reportSql('db', 'p', query, reportWindow(query));
    expect(reportSql('db', 'p', query, reportWindow(query), CLICKHOUSE_18_16)).toEqual(legacy);
    expect(legacy.delivery).toMatch(/\)\n\s+ANY LEFT JOIN \(/);
    expect(legacy.delivery).toMatch(/\) USING auction_id/);
    const current = reportSql('db', 'p', query, reportWindow(query), CURRENT);
    expect(current.delivery).toMatch(/\) AS delivery\n\s+ANY LEFT JOIN \(/);
    expect(current.delivery).toMatch(/\) AS fill USING auction_id/);
    // The other reads are the same SQL in both dialects.
    expect(current.auctions).toBe(legacy.auctions);
  });
});
