/**
 * Report exports (domain/insights/exports.ts): the insights endpoints' parameters and
 * errors, run by the worker's report-exports job, the whole report in its order with
 * the paged endpoint's figures (the test pages through the endpoint and compares), as
 * JSON lines and CSV, behind a download link that needs no key and expires.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { adctl } from '../support/cli';
import { signToken } from '../../lib/signed-token';
import { pruneReportExports } from '../../domain/insights/exports';
import { call, errorBody, useHarness } from '../support/harness';
import { eventually } from '../support/wait';
import { clickhouse, insertRows, newTenant, queryString, row, type Tenant } from './support';

const h = useHarness();
let ch: ClickHouseClient;
let t: Tenant;

const DAYS = ['2026-05-01', '2026-05-02', '2026-05-03', '2026-05-04'];
const query = {
  aggregation_level: 'ad',
  time_granularity: 'daily',
  'time_ranges[]': [JSON.stringify({ type: 'date_range', since: DAYS[0], until: DAYS[3] })],
  'fields[]': ['impressions', 'clicks', 'spend', 'ctr', 'cpm'],
  'sort[]': [JSON.stringify({ field: 'clicks', direction: 'desc' })],
};

beforeAll(async () => {
  ch = clickhouse();
  t = await newTenant(h, { campaigns: 2, groups: 2, ads: 2 });
  await insertRows(
    ch,
    t.ads.flatMap((ad, i) =>
      DAYS.map((day, d) => row(ad, `${day}T1${d}:00:00Z`, { impressions: 100 + i, clicks: (i + d) % 4, spend_micros: 250_000 * (i + 1) })),
    ),
  );
});
afterAll(async () => {
  await ch.close();
});

const post = (body: unknown) => call(h.url, 'POST', '/v1/report_exports', { token: t.org.api_key, body });
const local = (url: string) => url.replace(/^https?:\/\/[^/]+/, h.url);

/** Every row of the paged endpoint, 5 at a time. */
async function pagedRows(): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await t.get('/v1/ad_account/insights', { ...query, limit: '5', ...(after ? { after } : {}) });
    expect(page.status).toBe(200);
    rows.push(...page.body.data);
    if (!page.body.has_more) return rows;
    after = page.body.last_id;
  }
}

async function finished(id: string) {
  return eventually(
    async () => (await call(h.url, 'GET', `/v1/report_exports/${id}`, { token: t.org.api_key })).body,
    (body) => body.status === 'succeeded' || body.status === 'failed',
    { what: `report export ${id}`, timeoutMs: 90_000, everyMs: 200 },
  );
}

test('JSON lines: every row of the report, in its order, with the paged figures', async () => {
  const created = await post({ level: 'ad_account', format: 'jsonl', query });
  expect(created).toMatchObject({ status: 202, body: { object: 'report_export', status: 'queued', format: 'jsonl', download_url: null } });
  const done = await finished(created.body.id);
  const pages = await pagedRows();
  expect(pages).toHaveLength(t.ads.length * DAYS.length);
  expect(done).toMatchObject({ status: 'succeeded', progress: { rows_written: pages.length, rows_total: pages.length }, error: null });
  const file = await fetch(local(done.download_url));
  expect(file.status).toBe(200);
  expect(file.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
  const lines = (await file.text()).trimEnd().split('\n');
  expect(lines.map((line) => JSON.parse(line))).toEqual(pages);
});

test('CSV: a header, then the same rows and figures', async () => {
  const created = await post({ level: 'campaign', id: t.ads[0].campaignId, format: 'csv', query });
  const done = await finished(created.body.id);
  const pages: Record<string, string | number | null>[] = [];
  let after: string | undefined;
  do {
    const page = await t.get(`/v1/campaigns/${t.ads[0].campaignId}/insights`, { ...query, limit: '3', ...(after ? { after } : {}) });
    pages.push(...page.body.data);
    after = page.body.has_more ? page.body.last_id : undefined;
  } while (after);
  const text = await (await fetch(local(done.download_url))).text();
  const [header, ...lines] = text.trimEnd().split('\n');
  const columns = Object.keys(pages[0]);
  expect(header).toBe(columns.join(','));
  const cell = (value: string | number | null) => (value === null ? '' : String(value));
  expect(lines).toEqual(pages.map((p) => columns.map((c) => cell(p[c])).join(',')));
});

test("the endpoint's errors, at once: a bad query, another organization's campaign", async () => {
  const hourly = await post({ level: 'ad_account', query: { ...query, time_granularity: 'hourly' } });
  expect([hourly.status, hourly.body.error.code]).toEqual([400, 'hourly_range_too_wide']);
  const unknown = await post({ level: 'campaign', id: randomUUID(), query });
  expect([unknown.status, unknown.body.error.code]).toEqual([404, 'not_found']);
  const noId = await post({ level: 'ad', query });
  expect([noId.status, noId.body]).toEqual([400, errorBody('required', 'invalid_request_error', 'id')]);
});

test("over the 20,000-row cap: the export fails with report_too_large in the spec's error object, no file; the pages still answer", async () => {
  // One ad group's 2 ads x 365 days x 28 countries (the country segment is an ad group's or an ad's) = 20,440 decoded rows: one report decodes 20,000 at most.
  const big = await newTenant(h, { campaigns: 1, groups: 1, ads: 2 });
  const countries = 'AT BE BG CH CY CZ DE DK EE ES FI FR GB GR HR HU IE IT LT LU LV MT NL PL PT RO SE SI'.split(' ');
  const days = Array.from({ length: 365 }, (_, i) => new Date(Date.UTC(2025, 0, 1 + i)).toISOString().slice(0, 10));
  await insertRows(
    ch,
    big.ads.flatMap((ad) => days.flatMap((day) => countries.map((country) => row(ad, `${day}T12:00:00Z`, { country })))),
  );
  const wide = {
    aggregation_level: 'ad',
    time_granularity: 'daily',
    'time_ranges[]': [JSON.stringify({ type: 'date_range', since: days[0], until: days[days.length - 1] })],
    'segments[]': 'country',
  };
  const created = await call(h.url, 'POST', '/v1/report_exports', {
    token: big.org.api_key,
    body: { level: 'ad_group', id: big.ads[0].adGroupId, query: wide },
  });
  expect([created.status, created.body.error ?? created.body.status]).toEqual([202, 'queued']);
  const done = await eventually(
    async () => (await call(h.url, 'GET', `/v1/report_exports/${created.body.id}`, { token: big.org.api_key })).body,
    (body) => body.status === 'succeeded' || body.status === 'failed',
    { what: 'the export over the cap', timeoutMs: 90_000, everyMs: 200 },
  );
  expect(done).toMatchObject({
    status: 'failed',
    download_url: null,
    progress: { rows_written: 0 },
    error: {
      message: expect.stringContaining('more than 20,000 rows'),
      type: 'invalid_request_error',
      param: null,
      code: 'report_too_large',
    },
  });
  expect(Object.keys(done.error)).toEqual(['message', 'type', 'param', 'code']);
  expect((await h.db.reportExport.findUniqueOrThrow({ where: { id: created.body.id } })).content).toBeNull();
  // The paged endpoint is unchanged: its decoded set is the first 20,000 rows.
  const page = await big.get(`/v1/ad_groups/${big.ads[0].adGroupId}/insights`, { ...wide, limit: '2000' });
  expect([page.status, page.body.data.length, page.body.has_more]).toEqual([200, 2000, true]);
  // Narrowed (one ad), the same report fits and is exported whole.
  const narrow = await call(h.url, 'POST', '/v1/report_exports', {
    token: big.org.api_key,
    body: { level: 'ad', id: big.ads[0].adId, format: 'jsonl', query: wide },
  });
  const fits = await eventually(
    async () => (await call(h.url, 'GET', `/v1/report_exports/${narrow.body.id}`, { token: big.org.api_key })).body,
    (body) => body.status === 'succeeded' || body.status === 'failed',
    { what: 'the narrowed export', timeoutMs: 90_000, everyMs: 200 },
  );
  expect(fits).toMatchObject({ status: 'succeeded', error: null, progress: { rows_written: days.length * countries.length } });
}, 180_000);

test('the download link needs no key, and expires', async () => {
  const done = await finished((await post({ level: 'ad_account', query })).body.id);
  expect((await fetch(local(done.download_url))).status).toBe(200);
  const stale = signToken({ export_id: done.id }, 3600, undefined, Date.now() - 2 * 3600_000);
  const expired = await call(h.url, 'GET', `/report-exports/download${queryString({ token: stale })}`);
  expect([expired.status, expired.body]).toEqual([404, errorBody('not_found', 'invalid_request_error', 'token')]);
  const forged = await call(h.url, 'GET', `/report-exports/download${queryString({ token: `${stale}x` })}`);
  expect(forged.status).toBe(404);
});

test('adctl export: create for an organization, then show its progress and write its file', async () => {
  const created = await adctl('export', 'create', '--org', t.org.org_public_id, '--level', 'ad_account', '--format', 'jsonl', '--query', JSON.stringify(query));
  expect([created.code, created.stderr]).toEqual([0, '']);
  const { id } = JSON.parse(created.stdout);
  await finished(id);
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'export-')), 'report.jsonl');
  const shown = await adctl('export', 'show', id, '--output', file);
  expect([shown.code, shown.stderr]).toEqual([0, '']);
  expect(JSON.parse(shown.stdout)).toMatchObject({ id, status: 'succeeded', progress: { rows_written: t.ads.length * DAYS.length } });
  const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
  expect(lines.map((line) => JSON.parse(line))).toEqual(await pagedRows());
  const bad = await adctl('export', 'create', '--org', t.org.org_public_id, '--level', 'campaign');
  expect([bad.code, bad.stderr]).toEqual([1, 'adctl: id is required with level campaign\n']);
});

// Last: it prunes every finished export of the test database, as the retention job would in 8 days.
test('retention: an export and its file go 7 days after it finished', async () => {
  const done = await finished((await post({ level: 'ad_account', query })).body.id);
  expect(await pruneReportExports(h.db, 7, Date.now() + 6 * 86_400_000)).toBe(0);
  expect(await pruneReportExports(h.db, 7, Date.now() + 8 * 86_400_000)).toBeGreaterThanOrEqual(1);
  expect((await fetch(local(done.download_url))).status).toBe(404);
  expect((await call(h.url, 'GET', `/v1/report_exports/${done.id}`, { token: t.org.api_key })).status).toBe(404);
});
