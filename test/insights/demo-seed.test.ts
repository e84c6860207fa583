/**
 * The demo seeder (`adctl demo seed`, bench:insights) at a few thousand rows:
 * rows generated inside ClickHouse in chunks, several INSERTs at once, in the
 * raw table's key order; every rollup its materialized view filled holds the
 * raw rows' sums, and the spend store holds each campaign's.
 */
import { createDb, closeDb, type Db } from '../../lib/db';
import { identifier, inList } from '../../lib/clickhouse/sql';
import { DELIVERY_TABLES } from '../../domain/delivery/clickhouse-tables';
import { seedDemo, type DemoSeedResult } from '../../dev/demo-seed';
import { clickhouse, database } from './support';

const ch = clickhouse();
let db: Db;
let seeded: DemoSeedResult;
const progress: [number, number][] = [];
const TOTAL = 6001;

beforeAll(async () => {
  db = createDb(undefined, 2);
  // Small chunks, so that several run at once and a campaign's rows span chunks.
  seeded = await seedDemo(
    { db, ch, database: database() },
    { days: 3, impressions: TOTAL, organizations: 2, chunkRows: 200, parallel: 3, onProgress: (done, total) => progress.push([done, total]) },
  );
});

afterAll(async () => {
  await ch.close();
  await closeDb(db);
});

const rowsOf = async <T>(query: string) => (await ch.query({ query, format: 'JSONEachRow' })).json<T>();
const tableOf = (name: string) => `${identifier(database())}.${name}`;
const orgs = () => inList(seeded.orgs.map((o) => o.id));

test('every row once, evenly over campaigns and ads, progress up to the total', async () => {
  const [counts] = await rowsOf<{ n: string; ids: string; clicks: string; min_spend: string; max_spend: string }>(
    `SELECT toString(count()) AS n, toString(uniqExact(event_id)) AS ids, toString(sum(clicks)) AS clicks,
       toString(min(spend_micros)) AS min_spend, toString(max(spend_micros)) AS max_spend
     FROM ${tableOf(DELIVERY_TABLES.rows)} WHERE organization_id IN ${orgs()}`,
  );
  expect(counts).toMatchObject({ n: String(TOTAL), ids: String(TOTAL) });
  expect(Number(counts.clicks)).toBeGreaterThan(TOTAL * 0.01);
  expect(Number(counts.clicks)).toBeLessThan(TOTAL * 0.03);
  expect(Number(counts.min_spend)).toBeGreaterThanOrEqual(1000);
  expect(Number(counts.max_spend)).toBeLessThan(10_000);
  // 2 organizations x 4 campaigns: 750 or 751 rows each; every ad and every day has some.
  const perCampaign = await rowsOf<{ n: string }>(
    `SELECT toString(count()) AS n FROM ${tableOf(DELIVERY_TABLES.rows)} WHERE organization_id IN ${orgs()} GROUP BY campaign_id`,
  );
  expect(perCampaign.map((r) => Number(r.n)).sort()).toEqual([750, 750, 750, 750, 750, 750, 750, 751]);
  const [spread] = await rowsOf<{ ads: string; days: string }>(
    `SELECT toString(uniqExact(ad_id)) AS ads, toString(uniqExact(toDate(event_time))) AS days FROM ${tableOf(DELIVERY_TABLES.rows)} WHERE organization_id IN ${orgs()}`,
  );
  expect(spread).toEqual({ ads: String(seeded.ad_ids.length), days: '3' });
  expect(progress[0]).toEqual([0, TOTAL]);
  expect(progress.at(-1)).toEqual([TOTAL, TOTAL]);
  expect(progress.every(([done], i) => i === 0 || done > progress[i - 1][0])).toBe(true);
});

test("rows numbered in the raw table's key order (so ClickHouse need not sort a chunk)", async () => {
  const rows = await rowsOf<{ o: string; a: string; c: string; t: number; e: string }>(
    `SELECT organization_id AS o, ad_account_id AS a, campaign_id AS c, toUInt32(event_time) AS t, event_id AS e
     FROM ${tableOf(DELIVERY_TABLES.rows)} WHERE organization_id IN ${orgs()} ORDER BY e`,
  );
  const bytes = (s: string) => Buffer.from(s);
  const compare = (x: (typeof rows)[number], y: (typeof rows)[number]) =>
    Buffer.compare(bytes(x.o), bytes(y.o)) || Buffer.compare(bytes(x.a), bytes(y.a)) || Buffer.compare(bytes(x.c), bytes(y.c)) || x.t - y.t;
  expect(rows).toHaveLength(TOTAL);
  expect(rows.findIndex((r, i) => i > 0 && compare(rows[i - 1], r) > 0)).toBe(-1);
});

/** Sums per `keys` of the raw rows and of a rollup, for the seeded organizations. */
async function sums(from: string, keys: string, time: string) {
  return rowsOf<Record<string, string>>(
    `SELECT ${keys}, toString(${time}) AS t, toString(sum(impressions)) AS i, toString(sum(clicks)) AS c, toString(sum(spend_micros)) AS s
     FROM ${tableOf(from)} WHERE organization_id IN ${orgs()} GROUP BY ${keys}, t ORDER BY ${keys}, t`,
  );
}

test('every rollup holds the raw rows sums, per ad and bucket (and segment)', async () => {
  const entity = 'organization_id, ad_account_id, campaign_id, ad_group_id, ad_id';
  const segments = 'ad_group_id, ad_id, country, device';
  const { rows, hourly, daily, segmentsHourly, segmentsDaily } = DELIVERY_TABLES;
  expect(await sums(hourly, `${entity}, source`, 'hour')).toEqual(await sums(rows, `${entity}, source`, 'toStartOfHour(event_time)'));
  expect(await sums(daily, `${entity}, source`, 'day')).toEqual(await sums(rows, `${entity}, source`, "toDate(event_time, 'UTC')"));
  expect(await sums(segmentsHourly, segments, 'hour')).toEqual(await sums(rows, segments, 'toStartOfHour(event_time)'));
  expect(await sums(segmentsDaily, segments, 'day')).toEqual(await sums(rows, segments, "toDate(event_time, 'UTC')"));
});

test("the spend store holds each campaign's own-supply sums", async () => {
  const raw = await rowsOf<{ campaign_id: string; s: string; i: string; c: string }>(
    `SELECT campaign_id, toString(sum(spend_micros)) AS s, toString(sum(impressions)) AS i, toString(sum(clicks)) AS c
     FROM ${tableOf(DELIVERY_TABLES.rows)} WHERE organization_id IN ${orgs()} GROUP BY campaign_id`,
  );
  const stored = await db.campaignSpend.findMany({ where: { campaignId: { in: raw.map((r) => r.campaign_id) } } });
  expect(stored).toHaveLength(raw.length);
  for (const r of raw) {
    const spend = stored.find((s) => s.campaignId === r.campaign_id)!;
    expect([spend.spentMicros, spend.impressions, spend.clicks].map(String)).toEqual([r.s, r.i, r.c]);
  }
});
