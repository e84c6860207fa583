/**
 * `poll_votes` and `conversions` in insights: seeded votes (PostgreSQL) and
 * collected events (ClickHouse) at known times, attributed to seeded delivery
 * rows, reported through the four endpoints with granularities, a window in
 * another time zone, levels, segments, supply, filters and sort; and a vote
 * through the real vote endpoint counted in the default window.
 */
import { randomUUID } from 'node:crypto';
import type { ClickHouseClient } from '@clickhouse/client';
import { COLLECTED_EVENTS_TABLE } from '../../domain/events/clickhouse-tables';
import { mintPollTokens } from '../../domain/polls/poll-token';
import { identifier } from '../../lib/clickhouse/sql';
import { call, useHarness } from '../support/harness';
import { clickhouse, database, insertRows, newTenant, row, unix, type Tenant } from './support';

const h = useHarness();
let ch: ClickHouseClient;
let t: Tenant;
let adA: Tenant['ads'][number];
let adB: Tenant['ads'][number];

const days = (since: string, until: string, timezone?: string) => ({ type: 'date_range', since, until, ...(timezone ? { timezone } : {}) });
const MARCH = days('2026-03-10', '2026-03-12');

/** A poll vote of one delivery (auction) at a known time. */
async function seedVote(adId: string, auctionId: string, optionId: string, iso: string) {
  const [poll] = await h.db.$queryRaw<{ id: number }[]>`
    INSERT INTO sponsored_polls (ad_id) VALUES (${adId}::uuid)
    ON CONFLICT (ad_id) DO UPDATE SET ad_id = EXCLUDED.ad_id RETURNING id`;
  await h.db.$executeRaw`INSERT INTO poll_votes (poll_id, auction_id, option_id, created_at) VALUES (${poll.id}, ${auctionId}, ${optionId}, ${new Date(iso)})`;
}

/** A collected event as the pipeline stores it. */
const collected = (fields: Record<string, string>, iso: string) => ({
  inbox_id: Math.floor(Math.random() * 2 ** 48),
  organization_id: t.organizationId,
  event_id: randomUUID(),
  event_name: 'purchase',
  timestamp: `${iso.slice(0, 19)}Z`,
  received_at: `${iso.slice(0, 19)}Z`,
  channel: 'server',
  ...fields,
});

beforeAll(async () => {
  ch = clickhouse();
  t = await newTenant(h, { campaigns: 1, groups: 2, ads: 1 });
  [adA, adB] = t.ads;
  for (const ad of [adA, adB]) {
    await h.db.ad.update({ where: { id: ad.adId }, data: { creativeType: 'poll', title: 'Favourite colour?', body: null, options: ['Red', 'Blue'] } });
  }
  const clickA = randomUUID();
  const impressionB = randomUUID();
  await insertRows(ch, [
    row(adA, '2026-03-10T10:15:00Z', { auction_id: 'auc-a1', country: 'DE', device: 'mobile' }),
    row(adA, '2026-03-10T10:20:00Z', {
      event_id: clickA,
      event_type: 'click',
      auction_id: 'auc-a1',
      impressions: 0,
      clicks: 1,
      country: 'DE',
      device: 'mobile',
    }),
    row(adA, '2026-03-11T23:00:00Z', { auction_id: 'auc-a2', country: 'FR', device: 'desktop' }),
    row(adB, '2026-03-10T12:00:00Z', { event_id: impressionB, auction_id: 'auc-b1', country: 'US', device: 'mobile' }),
  ]);
  await seedVote(adA.adId, 'auc-a1', 'opt_1', '2026-03-10T10:30:00Z');
  await seedVote(adA.adId, 'auc-a2', 'opt_2', '2026-03-11T23:30:00Z');
  await seedVote(adB.adId, 'auc-b1', 'opt_1', '2026-03-10T12:05:00Z');
  await ch.insert({
    table: `${identifier(database())}.${identifier(COLLECTED_EVENTS_TABLE)}`,
    format: 'JSONEachRow',
    values: [
      collected({ click_id: clickA }, '2026-03-10T11:00:00Z'), // A (click, within 30 days)
      collected({ click_id: clickA, impression_id: impressionB }, '2026-03-10T12:30:00Z'), // both match: the click wins, A
      collected({ click_id: clickA }, '2026-03-11T23:45:00Z'), // A, a day later
      collected({ impression_id: impressionB }, '2026-03-10T13:00:00Z'), // B (view-through within a day)
      collected({ impression_id: impressionB }, '2026-03-12T13:00:00Z'), // view-through too late: nobody's
      collected({ click_id: randomUUID() }, '2026-03-10T13:00:00Z'), // not our delivery
    ],
  });
});
afterAll(async () => {
  await ch.close();
});

const pick = (rows: any[], keys: string[]) => rows.map((r) => Object.fromEntries(keys.map((k) => [k, r[k]])));

it('reports poll votes and conversions per ad and day, beside the delivery metrics', async () => {
  const res = await t.get('/v1/ad_account/insights', {
    aggregation_level: 'ad',
    'time_ranges[]': [MARCH],
    'fields[]': ['impressions', 'ad.poll_votes', 'conversions'],
  });
  expect(res.status).toBe(200);
  expect(pick(res.body.data, ['readable_time', 'ad_id', 'impressions', 'poll_votes', 'conversions', 'clicks'])).toEqual(
    [
      { readable_time: '2026-03-10', ad_id: adA.adId, impressions: 1, poll_votes: 1, conversions: 2, clicks: undefined },
      { readable_time: '2026-03-10', ad_id: adB.adId, impressions: 1, poll_votes: 1, conversions: 1, clicks: undefined },
      { readable_time: '2026-03-11', ad_id: adA.adId, impressions: 1, poll_votes: 1, conversions: 1, clicks: undefined },
    ].sort((x, y) => x.readable_time.localeCompare(y.readable_time) || x.ad_id.localeCompare(y.ad_id)),
  );
});

it('are not part of the default fields', async () => {
  const res = await t.get(`/v1/ads/${adA.adId}/insights`, { 'time_ranges[]': [MARCH], time_granularity: 'none' });
  expect(res.status).toBe(200);
  expect(res.body.data[0]).not.toHaveProperty('poll_votes');
  expect(res.body.data[0]).not.toHaveProperty('conversions');
});

it('roll up to every level and granularity (hourly, monthly, none)', async () => {
  const none = await t.get(`/v1/campaigns/${adA.campaignId}/insights`, {
    'time_ranges[]': [MARCH],
    time_granularity: 'none',
    'fields[]': ['poll_votes', 'conversions', 'clicks'],
  });
  expect(pick(none.body.data, ['campaign_id', 'poll_votes', 'conversions', 'clicks'])).toEqual([
    { campaign_id: adA.campaignId, poll_votes: 3, conversions: 4, clicks: 1 },
  ]);

  const groups = await t.get('/v1/ad_account/insights', {
    aggregation_level: 'ad_group',
    'time_ranges[]': [MARCH],
    time_granularity: 'monthly',
    'fields[]': ['poll_votes', 'conversions'],
  });
  expect(pick(groups.body.data, ['readable_time', 'ad_group_id', 'poll_votes', 'conversions'])).toEqual(
    [
      { readable_time: '2026-03', ad_group_id: adA.adGroupId, poll_votes: 2, conversions: 3 },
      { readable_time: '2026-03', ad_group_id: adB.adGroupId, poll_votes: 1, conversions: 1 },
    ].sort((x, y) => x.ad_group_id.localeCompare(y.ad_group_id)),
  );

  // Hourly: each count in the hour it happened; the conversions at 11:00 and 12:30 are in hours without deliveries of the ad.
  const hourly = await t.get(`/v1/ads/${adA.adId}/insights`, {
    time_granularity: 'hourly',
    'time_ranges[]': [{ type: 'hour_range', since: '2026-03-10T10', until: '2026-03-10T12' }],
    'fields[]': ['impressions', 'poll_votes', 'conversions'],
  });
  expect(pick(hourly.body.data, ['readable_time', 'impressions', 'poll_votes', 'conversions'])).toEqual([
    { readable_time: '2026-03-10T10', impressions: 1, poll_votes: 1, conversions: 0 },
    { readable_time: '2026-03-10T11', impressions: 0, poll_votes: 0, conversions: 1 },
    { readable_time: '2026-03-10T12', impressions: 0, poll_votes: 0, conversions: 1 },
  ]);
});

it('count in the windows of another time zone by the hour they happened', async () => {
  // Berlin's 2026-03-12 is 2026-03-11T23:00Z to 2026-03-12T23:00Z: the second vote and conversion of ad A fall in it.
  const res = await t.get(`/v1/ads/${adA.adId}/insights`, {
    'time_ranges[]': [days('2026-03-12', '2026-03-12', 'Europe/Berlin')],
    'fields[]': ['impressions', 'poll_votes', 'conversions'],
  });
  expect(res.status).toBe(200);
  expect(pick(res.body.data, ['start_time', 'end_time', 'readable_time', 'impressions', 'poll_votes', 'conversions'])).toEqual([
    {
      start_time: unix('2026-03-11T23:00:00Z'),
      end_time: unix('2026-03-12T00:00:00Z'),
      readable_time: '2026-03-11',
      impressions: 1,
      poll_votes: 1,
      conversions: 1,
    },
  ]);
});

it('split by country and device of the delivery they belong to, and by source', async () => {
  const country = await t.get(`/v1/ads/${adA.adId}/insights`, {
    'time_ranges[]': [MARCH],
    time_granularity: 'none',
    'segments[]': ['country'],
    'fields[]': ['impressions', 'poll_votes', 'conversions'],
  });
  expect(country.status).toBe(200);
  expect(pick(country.body.data, ['country', 'impressions', 'poll_votes', 'conversions'])).toEqual([
    { country: 'DE', impressions: 1, poll_votes: 1, conversions: 3 }, // every conversion came through the DE click
    { country: 'FR', impressions: 1, poll_votes: 1, conversions: 0 },
  ]);
  const device = await t.get(`/v1/ad_groups/${adB.adGroupId}/insights`, {
    'time_ranges[]': [MARCH],
    time_granularity: 'none',
    'segments[]': ['device'],
    'fields[]': ['poll_votes', 'conversions'],
  });
  expect(pick(device.body.data, ['device', 'poll_votes', 'conversions'])).toEqual([{ device: 'mobile', poll_votes: 1, conversions: 1 }]);

  const source = await t.get('/v1/ad_account/insights', {
    'time_ranges[]': [MARCH],
    time_granularity: 'none',
    'segments[]': ['source'],
    'fields[]': ['poll_votes', 'conversions'],
  });
  expect(pick(source.body.data, ['source', 'poll_votes', 'conversions'])).toEqual([{ source: 'own', poll_votes: 3, conversions: 4 }]);
  // Both are own supply: an external-only report has none.
  const external = await t.get('/v1/ad_account/insights', { 'time_ranges[]': [MARCH], source: 'external', 'fields[]': ['poll_votes', 'conversions'] });
  expect(external.status).toBe(200);
  expect(external.body.data).toEqual([]);
});

it('filter, sort and narrow by entity id like the other metrics', async () => {
  const sorted = await t.get('/v1/ad_account/insights', {
    aggregation_level: 'ad',
    'time_ranges[]': [MARCH],
    time_granularity: 'none',
    'fields[]': ['conversions'],
    'filters[]': [{ field: 'poll_votes', operator: 'GREATER_THAN', value: 0 }],
    'sort[]': [{ field: 'ad.conversions', direction: 'desc' }],
  });
  expect(pick(sorted.body.data, ['ad_id', 'conversions'])).toEqual([
    { ad_id: adA.adId, conversions: 3 },
    { ad_id: adB.adId, conversions: 1 },
  ]);

  const only = await t.get('/v1/ad_account/insights', {
    aggregation_level: 'ad',
    'time_ranges[]': [MARCH],
    time_granularity: 'none',
    'fields[]': ['poll_votes', 'conversions'],
    'filters[]': [{ field: 'conversions', operator: 'IN', value: [1] }],
  });
  expect(pick(only.body.data, ['ad_id', 'poll_votes', 'conversions'])).toEqual([{ ad_id: adB.adId, poll_votes: 1, conversions: 1 }]);

  const narrowed = await t.get('/v1/ad_account/insights', {
    aggregation_level: 'ad_group',
    'time_ranges[]': [MARCH],
    time_granularity: 'none',
    'fields[]': ['poll_votes', 'conversions'],
    'filters[]': [{ field: 'ad_group.id', operator: 'IN', value: [adB.adGroupId, randomUUID()] }],
  });
  expect(pick(narrowed.body.data, ['ad_group_id', 'poll_votes', 'conversions'])).toEqual([{ ad_group_id: adB.adGroupId, poll_votes: 1, conversions: 1 }]);

  expect((await t.get('/v1/ad_account/insights', { 'fields[]': ['votes'] })).body.error.code).toBe('unknown_field');
});

it("are another organization's nothing", async () => {
  const other = await newTenant(h);
  const res = await other.get('/v1/ad_account/insights', { 'time_ranges[]': [MARCH], time_granularity: 'none', 'fields[]': ['poll_votes', 'conversions'] });
  expect(res.status).toBe(200);
  expect(res.body.data).toEqual([]);
});

it('counts a vote cast through the vote endpoint in the default window', async () => {
  const { voteToken } = mintPollTokens({ adId: adB.adId, auctionId: `auc_${randomUUID()}`, ttlSeconds: 600 });
  const voted = await call(h.url, 'POST', `/api/v1/tracking/sponsored-polls/vote?token=${encodeURIComponent(voteToken)}`, { body: { option_id: 'opt_2' } });
  expect(voted.status).toBe(200);
  const res = await t.get(`/v1/ads/${adB.adId}/insights`, { time_granularity: 'none', 'fields[]': ['poll_votes'] });
  expect(pick(res.body.data, ['ad_id', 'poll_votes'])).toEqual([{ ad_id: adB.adId, poll_votes: 1 }]);
});
