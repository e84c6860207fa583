/**
 * Insights reports over real ClickHouse and PostgreSQL: each granularity over
 * windows given in Europe/Berlin across both daylight-saving changes of 2026,
 * the monthly roll-up, levels below the scope with names from PostgreSQL,
 * derived rates, and reconciliation with the raw delivery rows.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import { DELIVERY_TABLES } from '../../domain/delivery/clickhouse-tables';
import { sql } from '../../lib/clickhouse/sql';
import { useHarness } from '../support/harness';
import { clickhouse, database, insertRows, newTenant, row, unix, type Tenant } from './support';

const h = useHarness();
let ch: ClickHouseClient;
let t: Tenant;

const HOUR = 3600;
/** One row per UTC hour in [from, to): impressions 10, clicks 1 every third hour, spend 1.234567 dollars. */
function hourlyRows(ad: Tenant['ads'][number], fromIso: string, toIso: string) {
  const rows = [];
  for (let s = unix(fromIso), i = 0; s < unix(toIso); s += HOUR, i++) {
    rows.push(row(ad, new Date((s + 60) * 1000), { impressions: 10, clicks: i % 3 === 0 ? 1 : 0, spend_micros: 1_234_567 }));
  }
  return rows;
}

beforeAll(async () => {
  ch = clickhouse();
  t = await newTenant(h, { campaigns: 2, groups: 1, ads: 2 });
  const [a, b] = t.ads;
  await insertRows(ch, [
    // Around the spring change (Berlin 2026-03-29 is 23 hours) and the autumn one (2026-10-25 is 25 hours).
    ...hourlyRows(a, '2026-03-28T20:00:00Z', '2026-03-30T02:00:00Z'),
    ...hourlyRows(a, '2026-10-24T20:00:00Z', '2026-10-26T02:00:00Z'),
    // A second ad of the same campaign, and a month boundary in UTC.
    ...hourlyRows(b, '2026-04-30T20:00:00Z', '2026-05-01T04:00:00Z'),
  ]);
});
afterAll(async () => {
  await ch.close();
});

const berlinDay = (day: string) => ({ type: 'date_range', since: day, until: day, timezone: 'Europe/Berlin' });
const sum = (rows: any[], field: string) => rows.reduce((total, r) => total + r[field], 0);

test('none: one row per window; the Berlin spring-forward day is 23 hours, the fall-back day 25', async () => {
  const res = await t.get('/v1/ad_account/insights', {
    time_granularity: 'none',
    'time_ranges[]': [berlinDay('2026-03-29'), berlinDay('2026-10-25')],
  });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ object: 'list', count: 2, has_more: false });
  const [spring, autumn] = res.body.data;
  expect(spring).toEqual({
    id: `start=${unix('2026-03-28T23:00:00Z')}:end=${unix('2026-03-29T22:00:00Z')}:entity_id=${t.adAccountId}`,
    start_time: unix('2026-03-28T23:00:00Z'),
    end_time: unix('2026-03-29T22:00:00Z'),
    timezone: 'UTC',
    ad_account_id: t.adAccountId,
    ad_account_name: expect.any(String),
    impressions: 230,
    clicks: 8,
    spend: 28.395041, // 23 x 1_234_567 micros, one exact division: no float drift
  });
  expect(autumn).toMatchObject({ start_time: unix('2026-10-24T22:00:00Z'), end_time: unix('2026-10-25T23:00:00Z'), impressions: 250 });
  expect(res.body.first_id).toBe(spring.id);
  expect(res.body.last_id).toBe(autumn.id);
});

test('daily: UTC buckets cut at the edges of a Berlin window', async () => {
  const res = await t.get('/v1/ad_account/insights', { 'time_ranges[]': [berlinDay('2026-03-29')] });
  expect(res.status).toBe(200);
  expect(res.body.data.map((r: any) => [r.readable_time, r.start_time, r.end_time, r.impressions])).toEqual([
    ['2026-03-28', unix('2026-03-28T23:00:00Z'), unix('2026-03-29T00:00:00Z'), 10],
    ['2026-03-29', unix('2026-03-29T00:00:00Z'), unix('2026-03-29T22:00:00Z'), 220],
  ]);
  expect(res.body.data[0].timezone).toBe('UTC');
});

test('hourly: a Berlin hour range over the fall-back day has 25 hourly rows', async () => {
  const res = await t.get('/v1/ad_account/insights', {
    time_granularity: 'hourly',
    limit: '100',
    'time_ranges[]': [{ type: 'hour_range', since: '2026-10-25T00', until: '2026-10-25T23', timezone: 'Europe/Berlin' }],
  });
  expect(res.status).toBe(200);
  expect(res.body.count).toBe(25);
  expect(res.body.data[0]).toMatchObject({
    readable_time: '2026-10-24T22',
    start_time: unix('2026-10-24T22:00:00Z'),
    end_time: unix('2026-10-24T23:00:00Z'),
    impressions: 10,
  });
  expect(res.body.data[24]).toMatchObject({ readable_time: '2026-10-25T22' });
  const spring = await t.get('/v1/ad_account/insights', {
    time_granularity: 'hourly',
    limit: '100',
    'time_ranges[]': [{ type: 'hour_range', since: '2026-03-29T00', until: '2026-03-29T23', timezone: 'Europe/Berlin' }],
  });
  expect(spring.body.count).toBe(23);
});

test('monthly: daily data rolled up by UTC calendar month, cut to the window', async () => {
  const res = await t.get('/v1/campaigns/' + t.ads[1].campaignId + '/insights', {
    time_granularity: 'monthly',
    'time_ranges[]': [{ type: 'date_range', since: '2026-04-01', until: '2026-05-31', timezone: 'Europe/Berlin' }],
  });
  expect(res.status).toBe(200);
  // The Berlin window starts 2026-03-31T22:00Z (in March's UTC bucket, empty here); the ad's hours are 20:00Z Apr 30 .. 03:00Z May 1.
  expect(res.body.data.map((r: any) => [r.readable_time, r.start_time, r.end_time, r.impressions])).toEqual([
    ['2026-04', unix('2026-04-01T00:00:00Z'), unix('2026-05-01T00:00:00Z'), 40],
    ['2026-05', unix('2026-05-01T00:00:00Z'), unix('2026-05-31T22:00:00Z'), 40],
  ]);
  expect(res.body.data[0].campaign_id).toBe(t.ads[1].campaignId);
});

test('aggregation_level below the scope lists the entities, with names from PostgreSQL', async () => {
  const res = await t.get('/v1/ad_account/insights', {
    aggregation_level: 'ad',
    time_granularity: 'none',
    'time_ranges[]': [{ type: 'unix_range', start: unix('2026-03-01T00:00:00Z'), end: unix('2026-06-01T00:00:00Z') }],
  });
  expect(res.status).toBe(200);
  const ads = await h.db.ad.findMany({ where: { id: { in: t.ads.map((a) => a.adId) } } });
  const byId = new Map(ads.map((a) => [a.id, a.name]));
  const withData = [t.ads[0].adId, t.ads[1].adId];
  expect(res.body.data.map((r: any) => r.ad_id).sort()).toEqual([...withData].sort());
  for (const r of res.body.data) expect(r.ad_name).toBe(byId.get(r.ad_id));
});

test('ctr, cpc and cpm on request; null when their denominator is zero', async () => {
  const fields = ['ctr', 'ad.cpc', 'cpm', 'spend'];
  const res = await t.get('/v1/ads/' + t.ads[0].adId + '/insights', {
    time_granularity: 'hourly',
    'fields[]': fields,
    'time_ranges[]': [{ type: 'hour_range', since: '2026-03-29T00', until: '2026-03-29T02' }],
  });
  expect(res.status).toBe(200);
  expect(res.body.count).toBe(3);
  expect(Object.keys(res.body.data[0])).toEqual([
    'id',
    'start_time',
    'end_time',
    'readable_time',
    'timezone',
    'ad_id',
    'ad_name',
    'ctr',
    'cpc',
    'cpm',
    'spend',
  ]);
  const withClick = res.body.data.find((r: any) => r.ctr !== 0);
  const clickless = res.body.data.find((r: any) => r.ctr === 0);
  expect(withClick).toMatchObject({ ctr: 0.1, cpc: 1.234567, cpm: 123.4567 });
  expect(clickless).toMatchObject({ cpc: null, cpm: 123.4567 });
  const nothing = await t.get('/v1/ads/' + t.ads[0].adId + '/insights', { 'fields[]': ['ctr', 'cpm'], 'time_ranges[]': [berlinDay('2020-01-01')] });
  expect(nothing.body).toEqual({ object: 'list', data: [], count: 0, first_id: null, last_id: null, has_more: false });
});

test('reconciliation: report totals equal the sum of the raw delivery rows; a re-sent event counts once', async () => {
  const [a] = t.ads;
  const extra = [row(a, '2026-03-29T05:10:00Z', { impressions: 3, clicks: 2, spend_micros: 999_999 })];
  await insertRows(ch, extra);
  await insertRows(ch, extra); // the retried batch
  const window = { type: 'unix_range', start: unix('2026-01-01T00:00:00Z'), end: unix('2026-12-31T00:00:00Z') };
  const report = await t.get('/v1/ad_account/insights', { aggregation_level: 'ad', 'time_ranges[]': [window], limit: '2000' });
  expect(report.status).toBe(200);
  expect(report.body.has_more).toBe(false);
  const raw = await ch.query({
    query: `SELECT toString(sum(impressions)) AS impressions, toString(sum(clicks)) AS clicks, toString(sum(spend_micros)) AS spend_micros
            FROM (SELECT * FROM ${database()}.${DELIVERY_TABLES.rows} FINAL WHERE ${sql`organization_id = ${t.organizationId}`})`,
    format: 'JSONEachRow',
  });
  const [totals] = await raw.json<{ impressions: string; clicks: string; spend_micros: string }>();
  expect(sum(report.body.data, 'impressions')).toBe(Number(totals.impressions));
  expect(sum(report.body.data, 'clicks')).toBe(Number(totals.clicks));
  const spendMicros = report.body.data.reduce((total: number, r: any) => total + Math.round(r.spend * 1_000_000), 0);
  expect(spendMicros).toBe(Number(totals.spend_micros));
});

test('a large retried batch (more ids than one lookup holds) is written once', async () => {
  const [, , c] = t.ads;
  const batch = Array.from({ length: 9000 }, (_, i) => row(c, new Date(Date.UTC(2026, 6, 1) + i * 1000), { clicks: i % 2, spend_micros: 7 }));
  expect(await insertRows(ch, batch)).toBe(9000);
  expect(await insertRows(ch, batch)).toBe(0);
  const res = await t.get(`/v1/ads/${c.adId}/insights`, {
    time_granularity: 'none',
    'time_ranges[]': [{ type: 'date_range', since: '2026-07-01', until: '2026-07-01' }],
  });
  expect(res.body.data[0]).toMatchObject({ impressions: 9000, clicks: 4500, spend: 0.063 });
});
