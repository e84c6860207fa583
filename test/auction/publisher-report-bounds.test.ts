/**
 * A publisher report's work is bounded (issue 44, item 6): by format it reads
 * only the publisher's own delivery rows (publisher_delivery_events, sorted by
 * publisher; ClickHouse's own count of rows read says so), with the same figures
 * the raw delivery rows give; each publisher key has an hourly budget of reports
 * (429 in the spec's shape past it).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { config } from '../../lib/config';
import { createClickhouse } from '../../lib/clickhouse/client';
import { reportSql, reportWindow, reportQuerySchema } from '../../auction/reports/report';
import { REPORT_TABLES } from '../../auction/reports/clickhouse-tables';
import { DELIVERY_TABLES } from '../../domain/delivery/clickhouse-tables';
import { startAuction, until, type AuctionHarness } from './support';

const db = config.clickhouse.database;
const ch = createClickhouse();
let h: AuctionHarness;
beforeAll(async () => {
  h = await startAuction();
});
afterAll(async () => {
  await h?.close();
  await ch.close();
});

const today = () => new Date().toISOString().slice(0, 10);
const nowSeconds = () => Math.floor(Date.now() / 1000);

async function report(query: Record<string, string>) {
  const res = await fetch(`${h.url}/v1/reports?${new URLSearchParams(query).toString()}`, { headers: { authorization: `Bearer ${h.publisherKey}` } });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

/** Another publisher's many in-house deliveries today, written as the exporter writes them (each its own auction). */
const OTHER_ROWS = 100_000;
async function anotherPublishersTraffic(): Promise<void> {
  const other = randomUUID();
  await ch.command({
    query: `INSERT INTO ${db}.${DELIVERY_TABLES.rows} (event_id, event_type, event_time, organization_id, ad_account_id, campaign_id, ad_group_id, ad_id, source, country, device, publisher_id, auction_id, impressions, clicks, spend_micros)
            SELECT concat('bounds-', toString(number), '-${other}'), 'impression', now(), '${randomUUID()}', 'acct', 'camp', 'group', 'ad', 'own', 'US', 'mobile', '${other}', concat('${other}-', toString(number)), 1, 0, 2000
            FROM system.numbers LIMIT ${OTHER_ROWS}`,
  });
}

test("by format and by category: the publisher's own deliveries only, with their auctions' keys; ClickHouse reads none of another publisher's many rows", async () => {
  await anotherPublishersTraffic();
  const publisher = h.publisherId;
  const [a1, a2, a3] = [randomUUID(), randomUUID(), randomUUID()];
  const at = nowSeconds();
  const own = (eventId: string, type: string, auctionId: string, impressions: number, clicks: number, spend: number) => ({
    event_id: eventId,
    event_type: type,
    event_time: at,
    organization_id: randomUUID(),
    ad_account_id: 'acct',
    campaign_id: 'camp',
    ad_group_id: 'group',
    ad_id: 'ad',
    source: 'own',
    country: 'NR',
    device: 'mobile',
    publisher_id: publisher,
    auction_id: auctionId,
    impressions,
    clicks,
    spend_micros: spend,
  });
  const suffix = randomBytes(4).toString('hex');
  await ch.insert({
    table: `${db}.${DELIVERY_TABLES.rows}`,
    format: 'JSONEachRow',
    values: [own(`i1-${suffix}`, 'impression', a1, 1, 0, 2_000), own(`c1-${suffix}`, 'click', a1, 0, 1, 0), own(`i2-${suffix}`, 'impression', a2, 1, 0, 2_000)],
  });
  await ch.insert({
    table: `${db}.${DELIVERY_TABLES.dspRows}`,
    format: 'JSONEachRow',
    values: [
      {
        event_id: `d3-${suffix}`,
        event_type: 'impression',
        event_time: at,
        auction_id: a3,
        dsp_id: randomUUID(),
        bid_id: 'b',
        publisher_id: publisher,
        country: 'US',
        device: 'mobile',
        impressions: 1,
        clicks: 0,
        revenue_micros: 1_500_000,
      },
    ],
  });
  const day = new Date(at * 1000).toISOString().slice(0, 10);
  await ch.insert({
    table: `${db}.${REPORT_TABLES.fillFormats}`,
    format: 'JSONEachRow',
    values: [
      { publisher_id: publisher, day, auction_id: a1, format: 'sponsored_message' },
      { publisher_id: publisher, day, auction_id: a2, format: 'sponsored_message' },
      { publisher_id: publisher, day, auction_id: a3, format: 'carousel' },
    ],
  });

  const res = await report({ start_date: today(), end_date: today(), group_by: 'format' });
  expect(res.status).toBe(200);
  const byFormat = Object.fromEntries(
    res.body.data.filter((r: any) => r.impressions + r.clicks > 0).map((r: any) => [r.format, [r.impressions, r.clicks, r.revenue_micros]]),
  );
  expect(byFormat).toEqual({ sponsored_message: [2, 1, 4_000], carousel: [1, 0, 1_500_000] });

  // By category (and language: the same table) the deliveries take their auction's from publisher_fill_topics.
  await ch.insert({
    table: `${db}.${REPORT_TABLES.fillTopics}`,
    format: 'JSONEachRow',
    values: [
      { publisher_id: publisher, day, auction_id: a1, category: '210', language: 'en' },
      { publisher_id: publisher, day, auction_id: a2, category: '653', language: 'en' },
      { publisher_id: publisher, day, auction_id: a3, category: '653', language: 'es' },
    ],
  });

  // The report's very delivery query, measured by ClickHouse itself (system.query_log).
  for (const group_by of ['format', 'category'] as const) {
    const query = reportQuerySchema.parse({ start_date: today(), end_date: today(), group_by });
    const queryId = randomUUID();
    const rows = await (
      await ch.query({
        query: reportSql(db, publisher, query, reportWindow(query)).delivery,
        format: 'JSONEachRow',
        query_id: queryId,
        clickhouse_settings: { log_queries: 1 },
      })
    ).json<{ grp: string; impressions: number | string; clicks: number | string; revenue_micros: number | string }>();
    if (group_by === 'category')
      expect(Object.fromEntries(rows.map((r) => [r.grp, [Number(r.impressions), Number(r.clicks), Number(r.revenue_micros)]]))).toEqual({
        '210': [1, 1, 2_000],
        '653': [2, 0, 1_502_000],
      });
    // The log is written in the background: flushed, and read until the query's row is there.
    let logged: { read_rows: number | string } | undefined;
    await until(async () => {
      await ch.command({ query: 'SYSTEM FLUSH LOGS' });
      [logged] = await (
        await ch.query({ query: `SELECT read_rows FROM system.query_log WHERE query_id = '${queryId}' AND type = 2`, format: 'JSONEachRow' })
      ).json<{ read_rows: number | string }>();
      return logged !== undefined;
    }, 'the query in system.query_log');
    // Before: every delivery row of the month was scanned (at least the other publisher's 100,000).
    expect(Number(logged!.read_rows)).toBeLessThan(OTHER_ROWS / 2);
  }
}, 120_000);

test('past RATE_LIMIT_PUBLISHER_REPORTS_PER_HOUR a publisher key gets 429 rate_limit_exceeded with Retry-After', async () => {
  const limit = config.publisherReports.perPublisherPerHour;
  config.publisherReports.perPublisherPerHour = 2;
  try {
    const query = { start_date: today(), end_date: today() };
    // The first test's report counted one already.
    const second = await report(query);
    expect(second.status).toBe(200);
    expect(second.headers.get('x-ratelimit-limit')).toBe('2');
    expect(second.headers.get('x-ratelimit-remaining')).toBe('0');
    const third = await report(query);
    expect(third.status).toBe(429);
    expect(third.body).toEqual({
      error: { message: expect.any(String), type: 'rate_limit_error', param: null, code: 'rate_limit_exceeded' },
    });
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
  } finally {
    config.publisherReports.perPublisherPerHour = limit;
  }
});
