/**
 * Every error code of the spec's insights table, with its status, type and
 * param, through the HTTP endpoints (analytics_timeout through the query
 * runner, with ClickHouse's own max_execution_time).
 */
import type { ClickHouseClient } from '@clickhouse/client';
import { runAnalyticsQuery } from '../../domain/insights/analytics-query';
import { call, errorBody, useHarness } from '../support/harness';
import { clickhouse, newTenant, queryString, type Tenant } from './support';

const h = useHarness();
let ch: ClickHouseClient;
let t: Tenant;
let other: Tenant;

beforeAll(async () => {
  ch = clickhouse();
  t = await newTenant(h);
  other = await newTenant(h);
});
afterAll(async () => {
  await ch.close();
});

const day = (since: string, until = since, timezone?: string) => ({ type: 'date_range', since, until, ...(timezone ? { timezone } : {}) });
const hours = (since: string, until: string, timezone?: string) => ({ type: 'hour_range', since, until, ...(timezone ? { timezone } : {}) });

async function expectError(path: string, query: Record<string, any>, status: number, code: string, param: string | null) {
  const res = await t.get(path, query);
  expect({ query, status: res.status, body: res.body }).toEqual({
    query,
    status,
    body: errorBody(code, status === 404 ? 'invalid_request_error' : status >= 500 ? 'server_error' : 'invalid_request_error', param),
  });
}

const account = '/v1/ad_account/insights';
const adGroup = () => `/v1/ad_groups/${t.ads[0].adGroupId}/insights`;

test('invalid_value: time_granularity, aggregation_level, source, sort, limit', async () => {
  await expectError(account, { time_granularity: 'weekly' }, 400, 'invalid_value', 'time_granularity');
  await expectError(account, { aggregation_level: 'creative' }, 400, 'invalid_value', 'aggregation_level');
  await expectError(account, { source: 'partner' }, 400, 'invalid_value', 'source');
  await expectError(account, { 'sort[]': { field: 'campaign_name', direction: 'asc' } }, 400, 'invalid_value', 'sort[]');
  await expectError(account, { 'sort[]': { field: 'spend', direction: 'up' } }, 400, 'invalid_value', 'sort[]');
  await expectError(account, { 'sort[]': 'spend' }, 400, 'invalid_value', 'sort[]');
  for (const limit of ['0', '2001', '1.5', 'ten']) await expectError(account, { limit }, 400, 'invalid_value', 'limit');
  expect((await t.get(account, { limit: '2000' })).status).toBe(200);
});

test('aggregation_level_too_high: a level above the endpoint scope', async () => {
  await expectError(
    `/v1/campaigns/${t.ads[0].campaignId}/insights`,
    { aggregation_level: 'ad_account' },
    400,
    'aggregation_level_too_high',
    'aggregation_level',
  );
  await expectError(`/v1/ads/${t.ads[0].adId}/insights`, { aggregation_level: 'ad_group' }, 400, 'aggregation_level_too_high', 'aggregation_level');
  expect((await t.get(`/v1/ad_groups/${t.ads[0].adGroupId}/insights`, { aggregation_level: 'ad' })).status).toBe(200);
});

test('invalid_time_range: malformed entry, end not after start, unknown timezone, several ranges with an audience segment', async () => {
  const bad = [
    'not json',
    { type: 'week_range', since: '2026-01-01' },
    { type: 'date_range', since: '2026-02-30', until: '2026-03-01' },
    { type: 'unix_range', start: 'yesterday', end: 1 },
    { type: 'hour_range', since: '2026-01-01', until: '2026-01-01T05' },
    { type: 'unix_range', start: 100, end: 100 },
    day('2026-03-02', '2026-03-01'),
    hours('2026-03-01T05', '2026-03-01T04'),
    day('2026-03-01', '2026-03-02', 'Mars/Olympus_Mons'),
  ];
  for (const range of bad) await expectError(account, { 'time_ranges[]': [range] }, 400, 'invalid_time_range', 'time_ranges[]');
  await expectError(
    adGroup(),
    { 'segments[]': 'country', 'time_ranges[]': [day('2026-03-01'), day('2026-03-02')] },
    400,
    'invalid_time_range',
    'time_ranges[]',
  );
  // Overlapping windows would report a bucket twice.
  await expectError(account, { 'time_ranges[]': [day('2026-03-01', '2026-03-05'), day('2026-03-04')] }, 400, 'invalid_time_range', 'time_ranges[]');
});

test('range_too_wide and hourly_range_too_wide', async () => {
  await expectError(account, { 'time_ranges[]': [day('2025-01-01', '2026-01-02')] }, 400, 'range_too_wide', 'time_ranges[]');
  expect((await t.get(account, { 'time_ranges[]': [day('2025-01-01', '2026-01-01', 'America/New_York')] })).status).toBe(200);
  await expectError(
    account,
    { time_granularity: 'hourly', 'time_ranges[]': [hours('2026-03-01T00', '2026-03-02T01')] },
    400,
    'hourly_range_too_wide',
    'time_ranges[]',
  );
  // 25 hours fit: the Berlin fall-back day.
  expect((await t.get(account, { time_granularity: 'hourly', 'time_ranges[]': [day('2026-10-25', '2026-10-25', 'Europe/Berlin')] })).status).toBe(200);
});

test('hourly_unsupported_for_external_source', async () => {
  await expectError(account, { time_granularity: 'hourly', source: 'external' }, 400, 'hourly_unsupported_for_external_source', 'source');
  await expectError(
    account,
    { time_granularity: 'hourly', 'filters[]': { field: 'source', operator: 'IN', value: ['external'] } },
    400,
    'hourly_unsupported_for_external_source',
    'source',
  );
});

test('unknown_field', async () => {
  await expectError(account, { 'fields[]': ['impressions', 'reach'] }, 400, 'unknown_field', 'fields[]');
  await expectError(account, { 'fields[]': 'ad.name' }, 400, 'unknown_field', 'fields[]');
  expect((await t.get(account, { 'fields[]': ['ad.impressions', 'campaign.cpm'] })).status).toBe(200);
});

test('invalid_filter and invalid_filter_operator', async () => {
  const filter = (f: unknown) => ({ 'filters[]': [f] });
  const invalid = [
    'not json',
    ['field', 'spend'],
    { field: 'spend', operator: 'GREATER_THAN' },
    { field: 'name', operator: 'IN', value: ['x'] },
    { field: 'spend', operator: 'GREATER_THAN', value: 'ten' },
    { field: 'campaign.id', operator: 'IN', value: 'abc' },
    { field: 'source', operator: 'IN', value: ['partner'] },
  ];
  for (const f of invalid) await expectError(account, filter(f), 400, 'invalid_filter', 'filters[]');
  // An id finer than aggregation_level.
  await expectError(
    account,
    { aggregation_level: 'campaign', ...filter({ field: 'ad.id', operator: 'IN', value: [t.ads[0].adId] }) },
    400,
    'invalid_filter',
    'filters[]',
  );
  // A source filter disagreeing with the source parameter.
  await expectError(account, { source: 'own', ...filter({ field: 'source', operator: 'IN', value: ['external'] }) }, 400, 'invalid_filter', 'filters[]');
  const badOperators = [
    { field: 'clicks', operator: 'EQUALS', value: 3 },
    { field: 'ad_group_id', operator: 'GREATER_THAN', value: 1 },
    { field: 'source', operator: 'LESS_THAN', value: 1 },
  ];
  for (const f of badOperators) await expectError(account, { aggregation_level: 'ad', ...filter(f) }, 400, 'invalid_filter_operator', 'filters[]');
});

test('segments: too_many_segments, invalid_segment, unsupported_segment, segment_source_unsupported, segment_granularity_unsupported', async () => {
  await expectError(adGroup(), { 'segments[]': ['country', 'device'] }, 400, 'too_many_segments', 'segments[]');
  await expectError(adGroup(), { 'segments[]': 'browser' }, 400, 'invalid_segment', 'segments[]');
  await expectError(adGroup(), { 'segments[]': 'product' }, 400, 'unsupported_segment', 'segments[]');
  await expectError(account, { 'segments[]': 'country' }, 400, 'unsupported_segment', 'segments[]');
  await expectError(`/v1/campaigns/${t.ads[0].campaignId}/insights`, { 'segments[]': 'device' }, 400, 'unsupported_segment', 'segments[]');
  await expectError(
    adGroup(),
    { 'segments[]': 'country', 'filters[]': { field: 'ad_group.id', operator: 'IN', value: [t.ads[0].adGroupId] } },
    400,
    'unsupported_segment',
    'segments[]',
  );
  await expectError(adGroup(), { 'segments[]': 'device', source: 'external' }, 400, 'segment_source_unsupported', 'segments[]');
  await expectError(
    adGroup(),
    { 'segments[]': 'country', time_granularity: 'hourly', 'time_ranges[]': [hours('2026-03-01T00', '2026-03-01T05')] },
    400,
    'segment_granularity_unsupported',
    'time_granularity',
  );
  await expectError(adGroup(), { 'segments[]': 'device', time_granularity: 'monthly' }, 400, 'segment_granularity_unsupported', 'time_granularity');
  // The source segment is allowed at every level, with any granularity.
  expect((await t.get(account, { 'segments[]': 'source', time_granularity: 'monthly' })).status).toBe(200);
});

test('invalid_cursor: both cursors, or an unknown one', async () => {
  await expectError(account, { before: 'a', after: 'b' }, 400, 'invalid_cursor', 'before');
  await expectError(account, { after: 'start=1:end=2:entity_id=nope' }, 400, 'invalid_cursor', 'after');
  await expectError(account, { before: '' }, 400, 'invalid_cursor', 'before');
});

test('unsupported_parameter: includes[] and override_segment_group_order[]; other undocumented parameters are ignored', async () => {
  await expectError(account, { 'includes[]': 'campaign' }, 400, 'unsupported_parameter', 'includes[]');
  await expectError(account, { includes: 'campaign' }, 400, 'unsupported_parameter', 'includes');
  await expectError(account, { 'override_segment_group_order[]': 'country' }, 400, 'unsupported_parameter', 'override_segment_group_order[]');
  expect((await t.get(account, { level: 'ad' })).status).toBe(200);
});

test('auth_required and invalid_api_key', async () => {
  const none = await call(h.url, 'GET', account);
  expect(none).toMatchObject({ status: 401, body: errorBody('auth_required', 'authentication_error') });
  const bad = await call(h.url, 'GET', account, { token: `ak_${'x'.repeat(43)}` });
  expect(bad).toMatchObject({ status: 401, body: errorBody('invalid_api_key', 'authentication_error') });
});

test("not_found: unknown or another organization's entity in the path; foreign ids in filters match nothing", async () => {
  const foreign = other.ads[0];
  await expectError(`/v1/campaigns/${foreign.campaignId}/insights`, {}, 404, 'not_found', null);
  await expectError(`/v1/ad_groups/${foreign.adGroupId}/insights`, {}, 404, 'not_found', null);
  await expectError(`/v1/ads/${foreign.adId}/insights`, {}, 404, 'not_found', null);
  await expectError('/v1/ads/not-a-uuid/insights', {}, 404, 'not_found', null);
  await expectError('/v1/campaigns/00000000-0000-4000-8000-000000000000/insights', {}, 404, 'not_found', null);
  const res = await t.get(account, { aggregation_level: 'ad', 'filters[]': { field: 'ad.id', operator: 'IN', value: [foreign.adId, 'garbage'] } });
  expect(res.status).toBe(200);
  expect(res.body.count).toBe(0);
  const orgWithoutAccount = await h.db.adAccount.deleteMany({ where: { organizationId: other.organizationId } });
  expect(orgWithoutAccount.count).toBeGreaterThan(0);
  const noAccount = await call(h.url, 'GET', `${account}${queryString({})}`, { token: other.org.api_key });
  expect(noAccount).toMatchObject({ status: 404, body: errorBody('not_found') });
});

test('analytics_timeout: a query past its budget is stopped by ClickHouse (max_execution_time) and reported as such', async () => {
  await expect(runAnalyticsQuery(ch, 'SELECT sleep(2)', 1, ['slept'])).rejects.toMatchObject({ code: 'analytics_timeout' });
  // Values come back exact, escapes undone.
  await expect(runAnalyticsQuery(ch, "SELECT 1 AS one, 'a\\tb\\\\c\\nd' AS text", 10, ['one', 'text'])).resolves.toEqual([{ one: '1', text: 'a\tb\\c\nd' }]);
});
