/**
 * Insights latency through the HTTP endpoint (api process: auth, rate limit,
 * validation, scope and names from PostgreSQL, the rollup query in ClickHouse)
 * against the bare floor measured in the same run: the same aggregations as
 * plain SQL over the raw delivery rows through the ClickHouse client.
 *
 * Seeds at least BENCH_ROWS (default 10 million) delivery rows over 90 days
 * with the demo seeder, or reuses a database that already holds that many.
 *
 *   npm run bench:insights            (BENCH_ROWS, BENCH_ITERATIONS)
 * Last line: `insights rows=<n> p50_ms=<x> p95_ms=<y> raw_sql_p95_ms=<z>`
 */
import { performance } from 'node:perf_hooks';
import { createClickhouse } from '../lib/clickhouse/client';
import { identifier, sql } from '../lib/clickhouse/sql';
import { config } from '../lib/config';
import { createDb } from '../lib/db';
import { mintApiKey } from '../domain/api-keys/service';
import { DELIVERY_TABLES } from '../domain/delivery/clickhouse-tables';
import { seedDemo } from '../dev/demo-seed';
import { startApiProcess } from '../dev/processes';

const DAY = 86_400;
const HOUR = 3600;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

type Clickhouse = ReturnType<typeof createClickhouse>;
type Busiest = { organization_id: string; ad_account_id: string; ad_group_id: string; n: string };
type Report = { name: string; path: string; raw: string };

/** Seeds delivery rows until the raw table holds `wantedRows`; returns how many it holds. */
async function ensureRows(db: ReturnType<typeof createDb>, ch: Clickhouse, rawTable: string, wantedRows: number): Promise<number> {
  const countRows = async () =>
    Number((await (await ch.query({ query: `SELECT count() AS n FROM ${rawTable}`, format: 'JSONEachRow' })).json<{ n: string }>())[0].n);
  const rows = await countRows();
  if (rows >= wantedRows) {
    console.log(`reusing ${rows} delivery rows`);
    return rows;
  }
  console.log(`seeding ${wantedRows - rows} delivery rows over 90 days (the database holds ${rows})`);
  const started = performance.now();
  let lastPrinted = 0;
  await seedDemo(
    { db, ch, database: config.clickhouse.database },
    {
      days: 90,
      impressions: wantedRows - rows,
      onProgress: (done, total) => {
        if (done - lastPrinted >= 2_000_000 || done === total) {
          console.log(`  ${done}/${total} rows`);
          lastPrinted = done;
        }
      },
    },
  );
  console.log(`seeded in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return countRows();
}

/**
 * Waits (up to 30 minutes) for ClickHouse's background merges of the delivery tables to finish:
 * a database that grew over 90 days has its parts merged, and merges running beside the timed
 * queries would slow both sides by whatever the merge happens to take.
 */
async function waitForMerges(ch: Clickhouse) {
  const started = performance.now();
  const database = config.clickhouse.database;
  const running = async () =>
    Number(
      (
        await (
          await ch.query({
            query: `SELECT count() AS n FROM system.merges WHERE ${sql`database = ${database}`} AND table LIKE 'delivery%'`,
            format: 'JSONEachRow',
          })
        ).json<{ n: string }>()
      )[0].n,
    );
  while ((await running()) > 0 && performance.now() - started < 30 * 60_000) await new Promise((r) => setTimeout(r, 5000));
  const [size] = await (
    await ch.query({
      query: `SELECT formatReadableSize(sum(bytes_on_disk)) AS disk, toString(count()) AS parts FROM system.parts
              WHERE active AND ${sql`database = ${database}`} AND table LIKE 'delivery%'`,
      format: 'JSONEachRow',
    })
  ).json<{ disk: string; parts: string }>();
  console.log(`merges settled in ${((performance.now() - started) / 1000).toFixed(1)} s; delivery tables ${size.disk} on disk in ${size.parts} parts`);
}

/** The organization with the most delivery in the last 90 days, and one of its ad groups. */
async function busiestOrganization(ch: Clickhouse, now: number): Promise<Busiest> {
  const since90 = new Date((Math.floor(now / DAY) * DAY - 89 * DAY) * 1000);
  const [busiest] = await (
    await ch.query({
      query: `SELECT organization_id, ad_account_id, any(ad_group_id) AS ad_group_id, sum(impressions) AS n
            FROM ${identifier(config.clickhouse.database)}.${DELIVERY_TABLES.hourly} WHERE ${sql`hour >= ${since90}`}
            GROUP BY organization_id, ad_account_id ORDER BY n DESC LIMIT 1`,
      format: 'JSONEachRow',
    })
  ).json<Busiest>();
  return busiest;
}

/** Each report through the endpoint, with the same aggregation as plain SQL over the raw rows. */
function reportsOf(busiest: Busiest, rawTable: string, now: number): Report[] {
  const today = new Date(now * 1000).toISOString().slice(0, 10);
  const daysAgo = (n: number) => new Date((now - n * DAY) * 1000).toISOString().slice(0, 10);
  const hourStart = Math.floor(now / HOUR) * HOUR;
  const q = (params: Record<string, string | object>) =>
    new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)])).toString();
  const window30 = { type: 'date_range', since: daysAgo(29), until: today };
  const window90 = { type: 'date_range', since: daysAgo(89), until: today };
  const window25h = { type: 'unix_range', start: hourStart - 24 * HOUR, end: hourStart + HOUR };

  const org = sql`organization_id = ${busiest.organization_id} AND ad_account_id = ${busiest.ad_account_id}`;
  const between = (from: number, to: number) => sql`event_time >= toDateTime(${from}, 'UTC') AND event_time < toDateTime(${to}, 'UTC')`;
  const dayStart = Math.floor(now / DAY) * DAY;
  return [
    {
      name: 'account daily 30 days',
      path: `/v1/ad_account/insights?${q({ 'time_ranges[]': window30 })}`,
      raw: `SELECT toStartOfDay(event_time) AS d, sum(impressions), sum(clicks), sum(spend_micros) FROM ${rawTable}
            WHERE ${org} AND ${between(dayStart - 29 * DAY, dayStart + DAY)} GROUP BY d ORDER BY d`,
    },
    {
      name: 'ad level daily 90 days by spend',
      path: `/v1/ad_account/insights?${q({ aggregation_level: 'ad', 'time_ranges[]': window90, 'sort[]': { field: 'spend', direction: 'desc' }, limit: '100' })}`,
      raw: `SELECT ad_id, toStartOfDay(event_time) AS d, sum(impressions), sum(clicks), sum(spend_micros) AS s FROM ${rawTable}
            WHERE ${org} AND ${between(dayStart - 89 * DAY, dayStart + DAY)} GROUP BY ad_id, d ORDER BY s DESC LIMIT 100`,
    },
    {
      name: 'account hourly 25 hours',
      path: `/v1/ad_account/insights?${q({ time_granularity: 'hourly', 'time_ranges[]': window25h, limit: '25' })}`,
      raw: `SELECT toStartOfHour(event_time) AS h, sum(impressions), sum(clicks), sum(spend_micros) FROM ${rawTable}
            WHERE ${org} AND ${between(hourStart - 24 * HOUR, hourStart + HOUR)} GROUP BY h ORDER BY h`,
    },
    {
      name: 'ad group by country, daily 30 days',
      path: `/v1/ad_groups/${busiest.ad_group_id}/insights?${q({ 'segments[]': 'country', 'time_ranges[]': window30, limit: '500' })}`,
      raw: `SELECT toStartOfDay(event_time) AS d, country, sum(impressions), sum(clicks), sum(spend_micros) FROM ${rawTable}
            WHERE ${org} AND ${sql`ad_group_id = ${busiest.ad_group_id}`} AND ${between(dayStart - 29 * DAY, dayStart + DAY)} GROUP BY d, country ORDER BY d, country`,
    },
  ];
}

/** One report `iterations` times (after three warm-ups) through the endpoint and as raw SQL. */
async function timeReport(report: Report, apiUrl: string, secret: string, ch: Clickhouse, iterations: number) {
  const http: number[] = [];
  const raw: number[] = [];
  for (let i = -3; i < iterations; i++) {
    let started = performance.now();
    const res = await fetch(`${apiUrl}${report.path}`, { headers: { authorization: `Bearer ${secret}` } });
    const body = (await res.json()) as { count?: number };
    const httpMs = performance.now() - started;
    if (res.status !== 200) throw new Error(`${report.name}: ${res.status} ${JSON.stringify(body)}`);
    if (i === -3) console.log(`${report.name}: ${body.count} rows in the first page`);
    started = performance.now();
    await (await ch.query({ query: report.raw, format: 'JSONEachRow' })).json();
    const rawMs = performance.now() - started;
    if (i >= 0) {
      http.push(httpMs);
      raw.push(rawMs);
    } // the first three are warm-up
  }
  console.log(
    `  http p50 ${percentile(http, 50).toFixed(1)} ms p95 ${percentile(http, 95).toFixed(1)} ms | raw SQL p50 ${percentile(raw, 50).toFixed(1)} ms p95 ${percentile(raw, 95).toFixed(1)} ms`,
  );
  return { http, raw };
}

/** For reference: what any authenticated request costs here (auth, rate limit, one PostgreSQL read). */
async function timeApiFloor(apiUrl: string, secret: string, iterations: number) {
  const floor: number[] = [];
  for (let i = -3; i < iterations; i++) {
    const started = performance.now();
    await (await fetch(`${apiUrl}/v1/ad_account`, { headers: { authorization: `Bearer ${secret}` } })).text();
    if (i >= 0) floor.push(performance.now() - started);
  }
  console.log(`api floor, GET /v1/ad_account: p50 ${percentile(floor, 50).toFixed(1)} ms p95 ${percentile(floor, 95).toFixed(1)} ms`);
}

async function main() {
  const wantedRows = Number(process.env.BENCH_ROWS ?? 10_000_000);
  const iterations = Number(process.env.BENCH_ITERATIONS ?? 30);
  const rawTable = `${identifier(config.clickhouse.database)}.${DELIVERY_TABLES.rows}`;
  const db = createDb();
  const ch = createClickhouse(undefined, { compressResponses: false, requestTimeoutMs: 10 * 60_000 });
  const rows = await ensureRows(db, ch, rawTable, wantedRows);
  await waitForMerges(ch);

  const now = Math.floor(Date.now() / 1000);
  const busiest = await busiestOrganization(ch, now);
  const key = await mintApiKey(db, busiest.organization_id, 'bench insights');
  console.log(`organization ${busiest.organization_id}: ${busiest.n} impressions in 90 days`);

  const api = await startApiProcess({ RATE_LIMIT_PER_HOUR: '1000000' });
  const httpTimes: number[] = [];
  const rawTimes: number[] = [];
  try {
    for (const report of reportsOf(busiest, rawTable, now)) {
      const { http, raw } = await timeReport(report, api.url, key.record.secret, ch, iterations);
      httpTimes.push(...http);
      rawTimes.push(...raw);
    }
    await timeApiFloor(api.url, key.record.secret, iterations);
  } finally {
    await api.stop();
    await ch.close();
    await db.$disconnect();
  }
  console.log(
    `insights rows=${rows} p50_ms=${percentile(httpTimes, 50).toFixed(1)} p95_ms=${percentile(httpTimes, 95).toFixed(1)} raw_sql_p95_ms=${percentile(rawTimes, 95).toFixed(1)}`,
  );
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
