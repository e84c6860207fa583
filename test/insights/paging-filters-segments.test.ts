/**
 * Sorting, filtering, segments and cursor paging over a multi-page ad-level
 * report whose rows tie on the sort key, with own and external supply.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import { importExternalReport } from '../../domain/delivery/external-supply';
import { useHarness } from '../support/harness';
import { clickhouse, database, insertRows, newTenant, row, type Tenant } from './support';

const h = useHarness();
let ch: ClickHouseClient;
let t: Tenant;

const DAYS = ['2026-06-01', '2026-06-02', '2026-06-03', '2026-06-04', '2026-06-05'];
const window = { type: 'date_range', since: DAYS[0], until: DAYS[4] };
const accountPath = '/v1/ad_account/insights';

beforeAll(async () => {
  ch = clickhouse();
  t = await newTenant(h, { campaigns: 2, groups: 2, ads: 3 });
  const rows = t.ads.flatMap((ad, i) =>
    DAYS.map((day, d) =>
      row(ad, `${day}T1${d}:30:00Z`, {
        impressions: 100,
        clicks: i % 3,
        spend_micros: (i % 2) * 1_000_000 + 500_000,
        country: d % 2 === 0 ? 'DE' : 'FR',
        device: i % 2 === 0 ? 'mobile' : 'desktop',
      }),
    ),
  );
  await insertRows(ch, rows);
  // External supply for the first four ads on the first two days.
  await importExternalReport(
    { db: h.db, ch, database: database() },
    `test-${t.organizationId.slice(0, 8)}`,
    t.ads.slice(0, 4).flatMap((ad) =>
      DAYS.slice(0, 2).map((date) => ({
        date,
        ad_id: ad.adId,
        impressions: 50,
        clicks: 5,
        spend_micros: 2_000_000n,
      })),
    ),
  );
});
afterAll(async () => {
  await ch.close();
});

const adLevel = (extra: Record<string, any> = {}) => t.get(accountPath, { aggregation_level: 'ad', 'time_ranges[]': [window], ...extra });

test('cursor paging forwards and backwards over tied rows: no row missed or repeated, same order as one page', async () => {
  const sort = [{ field: 'ad.clicks', direction: 'desc' }];
  const full = await adLevel({ 'sort[]': sort, limit: '2000' });
  expect(full.status).toBe(200);
  expect(full.body.count).toBe(60);
  const ids: string[] = full.body.data.map((r: any) => r.id);
  expect(new Set(ids).size).toBe(60);
  // Ties on clicks fall back to the row id.
  for (let i = 1; i < ids.length; i++) {
    const [a, b] = [full.body.data[i - 1], full.body.data[i]];
    expect(a.clicks > b.clicks || (a.clicks === b.clicks && a.id < b.id)).toBe(true);
  }

  const forward: string[] = [];
  let after: string | undefined;
  for (let pages = 0; ; pages++) {
    const page = await adLevel({ 'sort[]': sort, limit: '7', ...(after ? { after } : {}) });
    expect(page.status).toBe(200);
    forward.push(...page.body.data.map((r: any) => r.id));
    expect(page.body.first_id).toBe(page.body.data[0].id);
    expect(page.body.last_id).toBe(page.body.data[page.body.count - 1].id);
    if (!page.body.has_more) {
      expect(pages).toBe(8);
      break;
    }
    after = page.body.last_id;
  }
  expect(forward).toEqual(ids);

  const backward: string[][] = [];
  let before: string = ids[ids.length - 1];
  for (;;) {
    const page = await adLevel({ 'sort[]': sort, limit: '7', before });
    expect(page.status).toBe(200);
    backward.unshift(page.body.data.map((r: any) => r.id));
    if (!page.body.has_more) break;
    before = page.body.first_id;
  }
  expect([...backward.flat(), ids[ids.length - 1]]).toEqual(ids);
});

test('sort keys apply in order; the row id breaks the remaining ties', async () => {
  const res = await adLevel({
    'sort[]': [
      { field: 'clicks', direction: 'asc' },
      { field: 'spend', direction: 'desc' },
    ],
    limit: '2000',
  });
  const data = res.body.data;
  for (let i = 1; i < data.length; i++) {
    const [a, b] = [data[i - 1], data[i]];
    const ordered = a.clicks < b.clicks || (a.clicks === b.clicks && (a.spend > b.spend || (a.spend === b.spend && a.id < b.id)));
    expect(ordered).toBe(true);
  }
  // Without sort[], rows come in id order (start time first).
  const plain = await adLevel({ limit: '2000' });
  const plainIds = plain.body.data.map((r: any) => r.id);
  expect(plainIds).toEqual([...plainIds].sort());
});

test('metric filters on computed rows, combined with entity-id filters and sort', async () => {
  const greater = await adLevel({ source: 'own', 'filters[]': [{ field: 'clicks', operator: 'GREATER_THAN', value: 0 }], limit: '2000' });
  expect(greater.body.count).toBe(40);
  expect(greater.body.data.every((r: any) => r.clicks > 0)).toBe(true);

  const campaign = t.ads[0].campaignId;
  const combined = await adLevel({
    source: 'own',
    limit: '2000',
    'filters[]': [
      { field: 'campaign.id', operator: 'IN', value: [campaign] },
      { field: 'spend', operator: 'LESS_THAN', value: 1 },
    ],
    'sort[]': [{ field: 'clicks', direction: 'desc' }],
  });
  const campaignAds = t.ads.filter((a) => a.campaignId === campaign).map((a) => a.adId);
  expect(combined.body.count).toBe(15); // three of the campaign's six ads spend 0.5 a day
  expect(combined.body.data.every((r: any) => campaignAds.includes(r.ad_id) && r.spend === 0.5)).toBe(true);

  const inList = await adLevel({
    source: 'own',
    'filters[]': [
      { field: 'ad.clicks', operator: 'IN', value: [2] },
      { field: 'ad_group_id', operator: 'IN', value: [t.ads[0].adGroupId] },
    ],
  });
  expect(inList.body.data.map((r: any) => r.ad_id)).toEqual(DAYS.map(() => t.ads[2].adId));

  const ctr = await adLevel({ source: 'own', 'fields[]': ['ctr'], 'filters[]': [{ field: 'ctr', operator: 'GREATER_THAN', value: 0.015 }], limit: '2000' });
  expect(ctr.body.count).toBe(20);
  expect(Object.keys(ctr.body.data[0])).toEqual(['id', 'start_time', 'end_time', 'readable_time', 'timezone', 'ad_id', 'ad_name', 'ctr']);
});

test('source: own, external, all; the source segment splits rows into sub-rows that sum to the combined total', async () => {
  const total = async (extra: Record<string, any>) => {
    const res = await t.get(accountPath, { time_granularity: 'none', 'time_ranges[]': [window], ...extra });
    expect(res.status).toBe(200);
    return res.body.data;
  };
  const [own] = await total({ source: 'own' });
  const [external] = await total({ source: 'external' });
  const [all] = await total({});
  expect(own).toMatchObject({ impressions: 6000, clicks: 60, spend: 60 });
  expect(external).toMatchObject({ impressions: 400, clicks: 40, spend: 16 });
  expect(all).toMatchObject({ impressions: 6400, clicks: 100, spend: 76 });
  const [fromFilter] = await total({ 'filters[]': { field: 'source', operator: 'IN', value: ['external'] } });
  expect(fromFilter).toEqual(external);

  const split = await total({ 'segments[]': 'source' });
  expect(split.map((r: any) => [r.source, r.impressions, r.id])).toEqual([
    ['external', 400, `${all.id}:source=external`],
    ['own', 6000, `${all.id}:source=own`],
  ]);
  // Per ad and day too: external only where it was imported.
  const daily = await adLevel({ 'segments[]': 'source', limit: '2000' });
  expect(daily.body.data.filter((r: any) => r.source === 'external')).toHaveLength(8);
  // A combined hourly report silently reports own supply only.
  const hourly = await t.get(accountPath, {
    time_granularity: 'hourly',
    'segments[]': 'source',
    'time_ranges[]': [{ type: 'hour_range', since: '2026-06-01T00', until: '2026-06-01T23' }],
  });
  expect(hourly.status).toBe(200);
  expect(hourly.body.data.every((r: any) => r.source === 'own')).toBe(true);
  expect(hourly.body.data.reduce((s: number, r: any) => s + r.impressions, 0)).toBe(1200);
});

test('country and device segments (ad group and ad scope, own supply, daily or none) sum to the own total', async () => {
  const ad = t.ads[1];
  const byCountry = await t.get(`/v1/ad_groups/${ad.adGroupId}/insights`, { 'segments[]': 'country', 'time_ranges[]': [window], limit: '100' });
  expect(byCountry.status).toBe(200);
  expect(byCountry.body.count).toBe(5); // one country a day
  expect(byCountry.body.data.map((r: any) => [r.readable_time, r.country])).toEqual(DAYS.map((day, d) => [day, d % 2 === 0 ? 'DE' : 'FR']));
  expect(byCountry.body.data[0].id).toMatch(/:entity_id=[0-9a-f-]{36}:country=DE$/);
  const own = await t.get(`/v1/ad_groups/${ad.adGroupId}/insights`, { source: 'own', time_granularity: 'none', 'time_ranges[]': [window] });
  expect(byCountry.body.data.reduce((s: number, r: any) => s + r.impressions, 0)).toBe(own.body.data[0].impressions);

  const byDevice = await t.get(`/v1/ads/${ad.adId}/insights`, { 'segments[]': 'device', time_granularity: 'none', 'time_ranges[]': [window] });
  expect(byDevice.body.data).toEqual([expect.objectContaining({ device: 'desktop', impressions: 500, ad_id: ad.adId })]);
  const adsByDevice = await t.get(`/v1/ad_groups/${ad.adGroupId}/insights`, {
    aggregation_level: 'ad',
    'segments[]': 'device',
    time_granularity: 'none',
    'time_ranges[]': [window],
  });
  expect(adsByDevice.body.data.map((r: any) => [r.ad_id, r.device])).toEqual(
    expect.arrayContaining([
      [t.ads[0].adId, 'mobile'],
      [t.ads[1].adId, 'desktop'],
      [t.ads[2].adId, 'mobile'],
    ]),
  );
});

test('several windows at once; each row belongs to one', async () => {
  const res = await t.get(accountPath, {
    time_granularity: 'none',
    source: 'own',
    'time_ranges[]': [
      { type: 'date_range', since: DAYS[0], until: DAYS[1] },
      { type: 'date_range', since: DAYS[3], until: DAYS[4] },
    ],
  });
  expect(res.body.data.map((r: any) => r.impressions)).toEqual([2400, 2400]);
});
