/**
 * The ClickHouse SQL our builders write runs on a current ClickHouse release
 * as well as on the dev/CI server (18.16): the same scenario (the migrate's DDL,
 * a few rows through the movers' own insert code, every report builder) runs
 * once against 18.16 (a scratch database) and once on chdb (the current engine
 * in-process, through scripts/chdb-run.py, installed by scripts/bootstrap.sh);
 * each step must succeed on chdb and give what it gives on 18.16. Where the
 * dialects differ the builders choose by lib/clickhouse/dialect.ts.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import type { ClickHouseClient } from '@clickhouse/client';
import { CLICKHOUSE_SETTINGS, createClickhouse } from '../lib/clickhouse/client';
import { clickhouseDialect } from '../lib/clickhouse/dialect';
import { addMissingColumns, applyClickhouseSchema } from '../lib/clickhouse/schema';
import { dropExpiredPartitions } from '../lib/clickhouse/retention';
import { DELIVERY_ADDED_COLUMNS, deliveryTables, invalidTrafficTables, retireLegacyDeliveryEvents } from '../domain/delivery/clickhouse-tables';
import { AUCTION_LOG_ADDED_COLUMNS, auctionTables } from '../auction/log/clickhouse-tables';
import { eventTables } from '../domain/events/clickhouse-tables';
import { servingTables, campaignTraffic } from '../domain/serving/traffic';
import { createPublisherDeliveryEvents, publisherReportTables } from '../auction/reports/clickhouse-tables';
import { insertDeliveryRows, insertDspDeliveryRows, type DeliveryRow, type DspDeliveryRow } from '../domain/delivery/rows';
import { verifiedRevenue } from '../domain/delivery/dsp-revenue';
import { importExternalReport } from '../domain/delivery/external-supply';
import { AuctionLog } from '../auction/log/writer';
import { dspReport } from '../auction/log/report';
import { publisherReport, reportSql, reportWindow, type ReportQuery } from '../auction/reports/report';
import { enrich, type InboxRow } from '../domain/events/enrich';
import { RUNNING_INSERTS_SQL, storedInboxIdsSql } from '../jobs/event-mover';
import { COLLECTED_EVENTS_TABLE } from '../domain/events/clickhouse-tables';
import { conversionsByAd } from '../domain/events/conversions';
import { runAnalyticsQuery } from '../domain/insights/analytics-query';
import { engagementRows } from '../domain/insights/engagement';
import { parseInsightsQuery, type RawQuery } from '../domain/insights/query';
import { REPORT_COLUMNS, reportQuery, type ReportScope } from '../domain/insights/sql';
import type { InsightsDeps } from '../domain/insights/report';
import type { AuctionContext, BidRecord, ValidBid } from '../auction/types';
import { lostBid } from './support/fixtures';
import type { Db } from '../lib/db';

const RUNNER = `${__dirname}/../scripts/chdb-run.py`;

// ---------------------------------------------------------------------------
// chdb as a ClickHouseClient (the subset the builders use), one Python process
// ---------------------------------------------------------------------------

interface Answer {
  ok?: boolean;
  output?: string;
  error?: string;
  version?: string;
}

class Chdb {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting: ((answer: Answer) => void)[] = [];
  private stderr = '';
  private exited: string | null = null;
  version!: string;

  constructor() {
    this.child = spawn('python3', [RUNNER], { env: { ...process.env, TZ: 'UTC' } });
    this.child.stderr.on('data', (chunk) => (this.stderr += String(chunk)));
    createInterface({ input: this.child.stdout }).on('line', (line) => this.waiting.shift()?.(JSON.parse(line) as Answer));
    this.child.on('exit', (code) => {
      this.exited = `scripts/chdb-run.py exited (${code}): ${this.stderr.trim() || 'no message'}`;
      for (const w of this.waiting.splice(0)) w({ ok: false, error: this.exited });
    });
  }

  private next(): Promise<Answer> {
    if (this.exited) return Promise.resolve({ ok: false, error: this.exited });
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Waits for the runner's greeting; a missing chdb fails here, with the runner's message. */
  async start(): Promise<void> {
    const hello = await this.next();
    if (!hello.version) throw new Error(`chdb is needed (scripts/bootstrap.sh installs it: python3 -m pip install chdb): ${hello.error}`);
    this.version = hello.version;
    await this.send({ settings: CLICKHOUSE_SETTINGS });
  }

  async send(request: object): Promise<string> {
    const answer = this.next();
    this.child.stdin.write(`${JSON.stringify(request)}\n`);
    const { ok, output, error } = await answer;
    if (!ok) throw new Error(error);
    return output ?? '';
  }

  run = (sql: string, format = 'TabSeparated') => this.send({ sql, format });

  /** Ends the runner: end of input, then SIGKILL if it has not exited within 5 s. */
  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }

  /** A ClickHouseClient over this session (query, command, insert, exec). */
  client(): ClickHouseClient {
    const result = (text: string) => ({
      text: async () => text,
      json: async () =>
        text
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as unknown),
    });
    const insertText = (query: string, body: string) => this.run(`${query}\n${body}`);
    return {
      query: async ({ query, format }: { query: string; format?: string }) => result(await this.run(query, format ?? 'JSON')),
      command: async ({ query }: { query: string }) => {
        await this.run(query);
        return {};
      },
      insert: async ({ table, values }: { table: string; values: unknown[] }) => {
        await insertText(`INSERT INTO ${table} FORMAT JSONEachRow`, values.map((v) => JSON.stringify(v)).join('\n'));
        return {};
      },
      exec: async ({ query, values }: { query: string; values: Readable }) => {
        const chunks: Buffer[] = [];
        for await (const chunk of values) chunks.push(Buffer.from(chunk as Buffer));
        await insertText(query, Buffer.concat(chunks).toString('utf8'));
        return { stream: Readable.from([]) };
      },
      close: async () => undefined,
    } as unknown as ClickHouseClient;
  }
}

// ---------------------------------------------------------------------------
// The scenario, run on each engine
// ---------------------------------------------------------------------------

const DATABASE = `chcurrent_${process.pid}`;
/** Every row's time: a fixed instant, so both runs see the same buckets. */
const T = Date.UTC(2026, 0, 15, 10, 20, 30);
const H = 3_600_000;
const ORG = 'org-1';
const ACCOUNT = 'acct-1';
const PUBLISHER = 'pub-1';
const DSP = '00000000-0000-4000-8000-0000000000d5';
const A = (n: number) => `auction-${n}`;

interface Engine {
  ch: ClickHouseClient;
  /** A client whose default database is the scenario's (what `adctl dsp report` and the event mover use). */
  inDatabase: ClickHouseClient;
}

const ownRow = (n: number, type: 'impression' | 'click', time: number, extra: Partial<DeliveryRow> = {}): DeliveryRow => ({
  event_id: `${A(n)}:${type}`,
  event_type: type,
  event_time: new Date(time),
  organization_id: ORG,
  ad_account_id: ACCOUNT,
  campaign_id: 'camp-1',
  ad_group_id: n % 2 ? 'group-1' : 'group-2',
  ad_id: `ad-${n % 3}`,
  source: 'own',
  country: n % 2 ? 'US' : 'DE',
  device: n % 3 ? 'mobile' : 'desktop',
  publisher_id: PUBLISHER,
  auction_id: A(n),
  impressions: type === 'impression' ? 1 : 0,
  clicks: type === 'click' ? 1 : 0,
  spend_micros: type === 'impression' ? 1500n * BigInt(n) : 0n,
  ...extra,
});

/** The ad with a poll (insights' poll votes take their country and device from its delivery rows). */
const POLL_AD = '00000000-0000-4000-8000-0000000000a1';

const DELIVERIES: DeliveryRow[] = [
  ownRow(1, 'impression', T - 2 * H, { ad_id: POLL_AD }),
  ownRow(1, 'click', T - 2 * H + 60_000, { ad_id: POLL_AD }),
  ownRow(2, 'impression', T - H),
  ownRow(3, 'impression', T),
  ownRow(4, 'impression', T - 30 * 24 * H),
  ownRow(5, 'impression', Date.UTC(2025, 10, 10, 8)), // November: past a 30-day retention on T
];

const DSP_DELIVERIES: DspDeliveryRow[] = [
  {
    event_id: `${A(6)}:impression`,
    event_type: 'impression',
    event_time: new Date(T),
    auction_id: A(6),
    dsp_id: DSP,
    bid_id: 'bid-6',
    publisher_id: PUBLISHER,
    country: 'US',
    device: 'mobile',
    impressions: 1,
    clicks: 0,
    revenue_micros: 2000,
  },
  {
    event_id: `${A(6)}:click`,
    event_type: 'click',
    event_time: new Date(T + 1000),
    auction_id: A(6),
    dsp_id: DSP,
    bid_id: 'bid-6',
    publisher_id: PUBLISHER,
    country: 'US',
    device: 'mobile',
    impressions: 0,
    clicks: 1,
    revenue_micros: 0,
  },
];

/** Collected events: two conversions of one click (its ad_click_id), one view-through, one of nothing of ours. */
function inboxRows(): InboxRow[] {
  const at = (id: number, event: InboxRow['event']): InboxRow => ({
    id: BigInt(id),
    organizationId: ORG,
    receivedAt: new Date(T + H),
    ipAddress: '203.0.113.9',
    event,
  });
  const ts = (T + 30 * 60_000) / 1000;
  return [
    at(1, { event_name: 'purchase', timestamp: ts, click_id: A(1), params: { plan: 'pro' } }),
    at(2, { event_name: 'signup', timestamp: ts + 60, click_id: A(1) }),
    at(3, { event_name: 'purchase', timestamp: ts, impression_id: `${A(3)}:impression` }),
    at(4, { event_name: 'purchase', timestamp: ts, click_id: 'someone-else' }),
  ];
}

const noGeo = () => null;

function recordAuctions(log: AuctionLog) {
  const ctx = (n: number) =>
    ({
      auctionId: A(n),
      tmaxMs: 120,
      publisher: { publicId: PUBLISHER, test: false },
      request: { request_type: 'contextual', country_code: n % 2 ? 'US' : 'DE', device: 'mobile', ad_formats: ['sponsored_message'] },
      // What the conversation was about: Travel (and its tier-2 Travel Accessories), or Food & Drink; the no fill's only the safety screen's.
      signals: n === 7 ? { categories: [], language: 'de' } : { categories: n % 2 ? ['653', '654'] : ['210'], language: n % 2 ? 'en' : 'es' },
      safety: n === 7 ? { siteCat: ['v9i3On'] } : undefined,
    }) as unknown as AuctionContext;
  const bid = (bidderId: string, outcome: BidRecord['outcome'], reason: BidRecord['reason'] = null): BidRecord => ({
    bidderId,
    bidderName: bidderId === DSP ? 'Acme DSP' : 'inhouse',
    kind: bidderId === DSP ? 'openrtb' : 'inhouse',
    bidId: outcome === 'rejected' ? null : `bid-${bidderId}`,
    priceMicros: outcome === 'rejected' ? null : 2_000_000,
    outcome,
    reason,
    detail: null,
    latencyMs: 12.5,
  });
  const inhouseWin = (n: number) =>
    ({ bidderId: 'inhouse', bidId: `bid-${n}`, priceMicros: 3_000_000, inhouse: { adId: `ad-${n % 3}`, campaignId: 'camp-1' } }) as unknown as ValidBid;
  const dspWin = { bidderId: DSP, bidId: 'bid-6', priceMicros: 1_500_000 } as unknown as ValidBid;
  for (const n of [1, 2, 3]) log.record(ctx(n), inhouseWin(n), [bid('inhouse', 'won'), bid(DSP, 'lost')], 20, 'sponsored_message');
  log.record(ctx(6), dspWin, [bid('inhouse', 'lost'), bid(DSP, 'won')], 30, 'carousel');
  log.record(ctx(7), null, [bid(DSP, 'rejected', 'no_bid')], 40, null, 'no_eligible_ads');
  log.recordInhouseStats([
    {
      event_time: '2026-01-15 10:20:00',
      campaign_id: 'camp-1',
      ad_group_id: 'group-1',
      ad_id: 'ad-1',
      outcome: 'won',
      requests: 3,
      win_prices: [],
      win_advertisers: [],
    },
    {
      event_time: '2026-01-15 10:20:00',
      campaign_id: 'camp-1',
      ad_group_id: 'group-1',
      ad_id: 'ad-1',
      outcome: 'outbid',
      requests: 2,
      win_prices: [4000, 5000],
      win_advertisers: ['org:a', 'org:b'],
    },
  ] as never);
}

const SCOPE: ReportScope = { organizationId: ORG, adAccountId: ACCOUNT };
/** Segments are for ad groups and ads only: their requests are asked of an ad group. */
const GROUP_SCOPE: ReportScope = { ...SCOPE, campaignId: 'camp-1', adGroupId: 'group-1' };
const range = (start: number, end: number) => JSON.stringify({ type: 'unix_range', start: start / 1000, end: end / 1000 });
const WINDOW = range(Date.UTC(2025, 10, 1), Date.UTC(2026, 1, 1));
/** Hourly reports cover at most 25 hours. */
const HOURS = range(T - 3 * H, T + 2 * H);
const insightsQuery = (raw: RawQuery, level: 'ad_account' | 'ad_group' = 'ad_account') =>
  parseInsightsQuery({ 'time_ranges[]': [WINDOW], ...raw }, level, T / 1000);
/** Insights requests: every granularity, level, segment and source. */
const INSIGHTS: [string, RawQuery, ('ad_account' | 'ad_group')?][] = [
  ['daily', {}],
  ['hourly, ads', { time_granularity: 'hourly', aggregation_level: 'ad', 'time_ranges[]': [HOURS] }],
  ['monthly, campaigns', { time_granularity: 'monthly', aggregation_level: 'campaign' }],
  ['none, ad groups, own', { time_granularity: 'none', aggregation_level: 'ad_group', source: 'own' }],
  ['country segment, ads', { 'segments[]': ['country'], aggregation_level: 'ad' }, 'ad_group'],
  ['device segment, none', { 'segments[]': ['device'], time_granularity: 'none' }, 'ad_group'],
  ['external only', { source: 'external' }],
  [
    'Berlin days and an older window',
    {
      'time_ranges[]': [
        JSON.stringify({ type: 'date_range', since: '2026-01-14', until: '2026-01-15', timezone: 'Europe/Berlin' }),
        range(Date.UTC(2025, 10, 1), Date.UTC(2026, 0, 10)),
      ],
    },
  ],
];
const scopeOf = (level?: 'ad_account' | 'ad_group') => (level === 'ad_group' ? GROUP_SCOPE : SCOPE);

const REPORTS: ReportQuery[] = (['daily', 'hourly'] as const).flatMap((granularity) =>
  [undefined, 'source', 'format', 'country', 'category', 'language'].map((group_by) => ({
    start_date: '2026-01-14',
    end_date: '2026-01-15',
    granularity,
    ...(group_by ? { group_by: group_by as ReportQuery['group_by'] } : {}),
  })),
);

const fakeDb = {
  dsp: { findMany: async () => [{ id: DSP, name: 'Acme DSP' }] },
  ad: {
    findMany: async () => [{ id: 'ad-1', adGroupId: 'group-1', adGroup: { campaignId: 'camp-1', campaign: { adAccountId: ACCOUNT, organizationId: ORG } } }],
  },
} as unknown as Db;

/** PostgreSQL's side of poll votes: the ad with a poll, and two votes of its auction 1 delivery. */
const pollDb = {
  ad: { findMany: async () => [{ id: POLL_AD, adGroupId: 'group-1', adGroup: { campaignId: 'camp-1' } }] },
  $queryRaw: async () => [{ ad_id: POLL_AD, bucket_start: Math.floor((T - 2 * H) / H) * 3600, votes: 2, auction_id: A(1) }],
} as unknown as Db;

type Step = [name: string, run: (e: Engine) => Promise<unknown>];

/** Sorted rows, so that a result compares whatever order an unordered query returns it in. */
const sorted = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).sort();

const STEPS: Step[] = [
  // --- DDL: scripts/clickhouse-migrate.ts, twice (idempotent), and a column added to an older table ---
  ['retire a legacy delivery table', ({ ch }) => retireLegacyDeliveryEvents(ch, DATABASE)],
  [
    'schema: delivery, auction log, events, serving',
    ({ ch }) => applyClickhouseSchema(DATABASE, [deliveryTables, auctionTables, eventTables, servingTables], ch),
  ],
  [
    'schema: an auction log without its added columns gains them',
    async ({ ch }) => {
      await ch.command({ query: `ALTER TABLE ${DATABASE}.auctions DROP COLUMN test` });
      await addMissingColumns(DATABASE, AUCTION_LOG_ADDED_COLUMNS, ch);
      return await (
        await ch.query({
          query: `SELECT name, type, default_expression FROM system.columns WHERE database = '${DATABASE}' AND table = 'auctions' ORDER BY name`,
          format: 'JSONEachRow',
        })
      ).json();
    },
  ],
  [
    'schema: publisher report rollups, the invalid-traffic columns and rollup',
    async ({ ch }) => {
      await addMissingColumns(DATABASE, DELIVERY_ADDED_COLUMNS, ch);
      await applyClickhouseSchema(DATABASE, [publisherReportTables, invalidTrafficTables], ch);
    },
  ],
  ['schema: the delivery rows by publisher, with their backfill', ({ ch }) => createPublisherDeliveryEvents(ch, DATABASE)],
  [
    'schema: the whole migrate again changes nothing',
    async ({ ch }) => {
      await retireLegacyDeliveryEvents(ch, DATABASE);
      await applyClickhouseSchema(DATABASE, [deliveryTables, auctionTables, eventTables, servingTables], ch);
      await addMissingColumns(DATABASE, [...AUCTION_LOG_ADDED_COLUMNS, ...DELIVERY_ADDED_COLUMNS], ch);
      await applyClickhouseSchema(DATABASE, [publisherReportTables, invalidTrafficTables], ch);
      await createPublisherDeliveryEvents(ch, DATABASE);
      return await (
        await ch.query({ query: `SELECT name, engine FROM system.tables WHERE database = '${DATABASE}' ORDER BY name`, format: 'JSONEachRow' })
      ).json();
    },
  ],
  // --- Rows, through the movers' own code ---
  [
    'auction log writer',
    async ({ inDatabase }) => {
      const now = jest.spyOn(Date, 'now').mockReturnValue(T);
      const log = new AuctionLog(inDatabase, { batchSize: 1000, flushMs: 60_000 });
      try {
        recordAuctions(log);
        await log.drain();
      } finally {
        now.mockRestore();
      }
      return log.queued;
    },
  ],
  [
    'auction log writer: a row refused for its data is set aside, the rest stored',
    async ({ inDatabase }) => {
      const letters: { targetTable: string; rowKey: string }[] = [];
      const log = new AuctionLog(inDatabase, { batchSize: 1000, flushMs: 60_000, setAside: async (l) => void letters.push(...l) });
      const ctx = {
        auctionId: 'poisoned',
        tmaxMs: 1,
        publisher: { publicId: 'pub-2' },
        request: { request_type: 'contextual', country_code: 'US', device: 'mobile', ad_formats: [] },
      };
      // A lone UTF-16 surrogate: what a DSP's checks now refuse, recorded straight into the log.
      log.record(ctx as unknown as AuctionContext, null, [lostBid('good-1', 'a'), lostBid('poison', 'x\ud800'), lostBid('good-2', 'b')], 1, null);
      await log.drain();
      const stored = await (
        await inDatabase.query({ query: "SELECT bidder_id FROM auction_bids WHERE auction_id = 'poisoned' ORDER BY bidder_id", format: 'JSONEachRow' })
      ).json();
      return { letters: letters.map((l) => [l.targetTable, l.rowKey]), stored };
    },
  ],
  [
    'delivery export: own rows, then the same again (looked up, not re-sent)',
    async ({ ch }) => [await insertDeliveryRows(ch, DATABASE, DELIVERIES), await insertDeliveryRows(ch, DATABASE, DELIVERIES)],
  ],
  [
    'delivery export: DSP rows, then again',
    async ({ ch }) => [await insertDspDeliveryRows(ch, DATABASE, DSP_DELIVERIES), await insertDspDeliveryRows(ch, DATABASE, DSP_DELIVERIES)],
  ],
  [
    'delivery export: DSP revenue verified against the auction log',
    async ({ ch }) => {
      const impression = (n: number, bidId: string) => ({
        event_id: `${A(n)}:impression`,
        auction_id: A(n),
        dsp_id: DSP,
        bid_id: bidId,
        event_ms: String(T + 5000),
        price_micros: '1200',
      });
      const revenue = await verifiedRevenue(ch, DATABASE, [impression(6, 'bid-6'), impression(1, 'bid-x'), impression(99, 'bid-99')], {
        viewTokenTtlSeconds: 3600,
        graceSeconds: 60,
        now: T + 10_000,
      });
      return [...revenue.entries()];
    },
  ],
  [
    'event mover: enriched rows inserted, then found stored',
    async ({ inDatabase }) => {
      const rows = inboxRows().map((r) => enrich(r, noGeo));
      await inDatabase.insert({ table: COLLECTED_EVENTS_TABLE, values: rows, format: 'JSONEachRow' });
      return (await (await inDatabase.query({ query: storedInboxIdsSql('2', '9'), format: 'JSONEachRow' })).json()).length;
    },
  ],
  [
    'event mover: running inserts (not compared: 18.16 is shared)',
    async ({ inDatabase }) => {
      await inDatabase.query({ query: RUNNING_INSERTS_SQL, format: 'JSONEachRow' });
      return null;
    },
  ],
  [
    'external supply import (partition swap)',
    async ({ ch }) => {
      const row = (date: string, impressions: number) => ({ date, ad_id: 'ad-1', impressions, clicks: 1, spend_micros: 7000n });
      await importExternalReport({ db: fakeDb, ch, database: DATABASE }, 'partner-a', [row('2026-01-14', 10), row('2026-01-15', 20)]);
      return importExternalReport({ db: fakeDb, ch, database: DATABASE }, 'partner-a', [row('2026-01-15', 25)]);
    },
  ],
  // --- Reads ---
  ...INSIGHTS.map(([name, raw, level]): Step => [
    `insights: ${name}`,
    async ({ ch }) => runAnalyticsQuery(ch, reportQuery(DATABASE, scopeOf(level), insightsQuery(raw, level), 20_000), 10, REPORT_COLUMNS),
  ]),
  ...INSIGHTS.map(([name, raw, level]): Step => [
    `insights: conversions, ${name}`,
    async ({ ch }) => {
      const deps = { ch, database: DATABASE, timeoutSeconds: 10 } as InsightsDeps;
      return sorted(await engagementRows(deps, scopeOf(level), insightsQuery({ ...raw, 'fields[]': ['conversions'] }, level), ['conversions']));
    },
  ]),
  [
    'insights: poll votes by country (their deliveries looked up)',
    async ({ ch }) => {
      const deps: InsightsDeps = { ch, db: pollDb, database: DATABASE, timeoutSeconds: 10 };
      const query = insightsQuery({ 'segments[]': ['country'], aggregation_level: 'ad', 'fields[]': ['poll_votes'] }, 'ad_group');
      return sorted(await engagementRows(deps, GROUP_SCOPE, query, ['poll_votes']));
    },
  ],
  ...(['hourly', 'daily', 'monthly', 'none'] as const).map((granularity): Step => [
    `conversions by ad (${granularity})`,
    ({ ch }) =>
      conversionsByAd(ch, {
        organizationId: ORG,
        adIds: ['ad-0', 'ad-1', 'ad-2'],
        start: new Date(T - 24 * H),
        end: new Date(T + 24 * H),
        granularity,
        database: DATABASE,
      }),
  ]),
  ...REPORTS.map((query): Step => [
    `publisher report: ${query.granularity}${query.group_by ? ` by ${query.group_by}` : ''}`,
    ({ ch }) => publisherReport({ db: fakeDb, ch, database: DATABASE }, { publicId: PUBLISHER, test: false }, query),
  ]),
  [
    'publisher report: a window before 1970 is cut to DateTime',
    async ({ ch }) => {
      const query: ReportQuery = { start_date: '1969-12-01', end_date: '1970-01-01', granularity: 'daily' };
      const text = reportSql(DATABASE, PUBLISHER, query, reportWindow(query));
      return [
        await (await ch.query({ query: text.auctions, format: 'JSONEachRow' })).json(),
        await (await ch.query({ query: text.delivery, format: 'JSONEachRow' })).json(),
      ];
    },
  ],
  ['adctl dsp report', ({ inDatabase }) => dspReport({ since: new Date(T - 24 * H) }, inDatabase)],
  ['adctl dsp report, one DSP', ({ inDatabase }) => dspReport({ since: new Date(T - 24 * H), dspId: DSP }, inDatabase)],
  [
    'delivery diagnostics: in-house traffic',
    async ({ ch }) => {
      const traffic = await campaignTraffic(ch, DATABASE, 'camp-1', new Date(T - H));
      return [...traffic.entries()].map(([ad, t]) => [ad, t.counts, [...t.winPrices].sort((a, b) => a.priceMicros - b.priceMicros)]);
    },
  ],
  // --- Retention, last: it drops what the reads above counted ---
  [
    'retention: expired months dropped',
    async ({ ch }) => {
      const dropped = await dropExpiredPartitions(ch, DATABASE, 'delivery_events', 30, T);
      const left = await (await ch.query({ query: `SELECT count() AS n FROM ${DATABASE}.delivery_events`, format: 'JSONEachRow' })).json();
      return { dropped, left };
    },
  ],
];

// ---------------------------------------------------------------------------

type Outcome = { ok: true; value: unknown } | { ok: false; error: string };

async function runScenario(engine: Engine): Promise<Map<string, Outcome>> {
  const outcomes = new Map<string, Outcome>();
  for (const [name, run] of STEPS) {
    try {
      outcomes.set(name, {
        ok: true,
        value: JSON.parse(JSON.stringify((await run(engine)) ?? null, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))),
      });
    } catch (err) {
      outcomes.set(name, { ok: false, error: (err as Error).message });
    }
  }
  return outcomes;
}

const chdb = new Chdb();
const legacy = createClickhouse('default');
let legacyInDatabase: ClickHouseClient;
let onLegacy: Map<string, Outcome>;
let onCurrent: Map<string, Outcome>;

beforeAll(async () => {
  await chdb.start();
  await legacy.command({ query: `DROP DATABASE IF EXISTS ${DATABASE}` });
  await legacy.command({ query: `CREATE DATABASE ${DATABASE}` });
  legacyInDatabase = createClickhouse(DATABASE);
  onLegacy = await runScenario({ ch: legacy, inDatabase: legacyInDatabase });
  await chdb.run(`CREATE DATABASE ${DATABASE}`);
  await chdb.run(`USE ${DATABASE}`);
  const current = chdb.client();
  onCurrent = await runScenario({ ch: current, inDatabase: current });
}, 50_000);

afterAll(async () => {
  await chdb.close();
  await legacy.command({ query: `DROP DATABASE IF EXISTS ${DATABASE}` }).catch(() => undefined);
  await legacyInDatabase?.close();
  await legacy.close();
});

test('the engines are ClickHouse 18.16 and a current release, each dialect detected from its version', async () => {
  expect((await clickhouseDialect(legacy)).major).toBe(18);
  expect(Number(chdb.version.split('.')[0])).toBeGreaterThanOrEqual(24);
  expect((await clickhouseDialect(chdb.client())).anyInnerJoin).toBe('SEMI LEFT JOIN');
});

test.each(STEPS.map(([name]) => name))('%s: runs on both, the same result', (name) => {
  const legacyOutcome = onLegacy.get(name)!;
  const currentOutcome = onCurrent.get(name)!;
  if (!legacyOutcome.ok) throw new Error(`on ClickHouse 18.16: ${legacyOutcome.error}`);
  if (!currentOutcome.ok) throw new Error(`on chdb ${chdb.version}: ${currentOutcome.error}`);
  expect(currentOutcome.value).toEqual(legacyOutcome.value);
});

test('the scenario has rows to compare: reports and conversions are not empty', () => {
  const value = (name: string) => (onLegacy.get(name) as { value: unknown }).value;
  expect(value('insights: daily')).not.toHaveLength(0);
  expect(value('conversions by ad (none)')).not.toHaveLength(0);
  expect(value('insights: conversions, daily')).not.toHaveLength(0);
  expect(value('auction log writer: a row refused for its data is set aside, the rest stored')).toEqual({
    letters: [['auction_bids', 'poisoned:poison']],
    stored: [{ bidder_id: 'good-1' }, { bidder_id: 'good-2' }],
  });
  // The votes took the country of their delivery.
  expect(value('insights: poll votes by country (their deliveries looked up)')).toEqual([expect.stringContaining('"segment_value":"US"')]);
  expect((value('adctl dsp report') as { dsps: unknown[] }).dsps).not.toHaveLength(0);
  expect((value('publisher report: daily by format') as { data: unknown[] }).data).not.toHaveLength(0);
});
