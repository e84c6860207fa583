/**
 * Raw data has a time to live: whole months past it are dropped from the raw
 * ClickHouse tables, and old dead letters deleted (jobs/retention.ts); so are
 * expired sessions and sign-in links, parked DSP callbacks past their time and
 * idempotency records that never completed (docs/deploy.md, "Retention").
 */
import { randomUUID } from 'node:crypto';
import { createClickhouse } from '../lib/clickhouse/client';
import { sql } from '../lib/clickhouse/sql';
import { dropExpiredPartitions } from '../lib/clickhouse/retention';
import { config } from '../lib/config';
import { createDb, createPgPool } from '../lib/db';
import { recordDeliveries } from '../domain/delivery/charge';
import type { TrackedDelivery } from '../domain/delivery/ledger';
import { awaitingExport, exportLedgerBatch } from '../jobs/delivery-exporter';
import { exportOptions } from '../jobs/delivery-export';
import { applyRetention, pruneDeliveryLedger, pruneShownEvents, rawTableRetention } from '../jobs/retention';
import { newOrg } from './support/harness';
import { until } from './support/wait';
import { deliverableCampaign } from './tracking/support';

const db = createDb(undefined, 2);
const ch = createClickhouse();
afterAll(async () => {
  await db.$disconnect();
  await ch.close();
});

const DAY = 86_400_000;
const seconds = (ms: number) => Math.floor(ms / 1000);

test('a month is dropped once all of it is past the time to live; younger months stay', async () => {
  const tag = randomUUID();
  const now = Date.now();
  // Far past any time to live, and inside this month: the auction log's bids table, which no other test dates back.
  const old = Date.UTC(2019, 4, 15);
  await ch.insert({
    table: 'auction_bids',
    format: 'JSONEachRow',
    values: [
      { auction_id: `${tag}-old`, event_time: seconds(old), bidder_id: 'r' },
      { auction_id: `${tag}-new`, event_time: seconds(now), bidder_id: 'r' },
    ],
  });
  const left = async () =>
    (
      await (
        await ch.query({ query: sql`SELECT auction_id FROM auction_bids WHERE auction_id IN (${`${tag}-old`}, ${`${tag}-new`})`, format: 'JSONEachRow' })
      ).json<{ auction_id: string }>()
    ).map((r) => r.auction_id);
  expect((await left()).sort()).toEqual([`${tag}-new`, `${tag}-old`]);

  // May 2019 ends 2019-06-01: with a time to live reaching into May it stays, once past June 1 it goes.
  const daysTo = (t: number) => Math.floor((now - t) / DAY);
  expect(await dropExpiredPartitions(ch, config.clickhouse.database, 'auction_bids', daysTo(Date.UTC(2019, 4, 20)))).not.toContain('201905');
  expect(await dropExpiredPartitions(ch, config.clickhouse.database, 'auction_bids', daysTo(Date.UTC(2019, 5, 2)))).toContain('201905');
  expect(await left()).toEqual([`${tag}-new`]);
});

test('the retention job covers every raw table, and deletes dead letters past theirs', async () => {
  expect(
    rawTableRetention()
      .map((r) => r.table)
      .sort(),
  ).toEqual([
    'auction_bids',
    'auctions',
    'collected_events',
    'delivery_events',
    'dsp_delivery_events',
    'inhouse_stats',
    'publisher_delivery_events',
    'publisher_fill_formats',
    'publisher_fill_topics',
  ]);
  const key = randomUUID();
  await db.deadLetter.createMany({
    data: [
      {
        targetTable: 'retention_test',
        rowKey: `${key}-old`,
        payload: '{}',
        error: 'x',
        createdAt: new Date(Date.now() - (config.retention.deadLettersDays + 1) * DAY),
      },
      { targetTable: 'retention_test', rowKey: `${key}-new`, payload: '{}', error: 'x' },
    ],
  });
  // Only the auction log here: other raw tables hold other tests' data.
  await applyRetention(
    db,
    ch,
    config.clickhouse.database,
    rawTableRetention().filter((r) => r.table.startsWith('auction')),
  );
  expect((await db.deadLetter.findMany({ where: { targetTable: 'retention_test', rowKey: { startsWith: key } } })).map((l) => l.rowKey)).toEqual([
    `${key}-new`,
  ]);
});

test('the retention job deletes what is expired or set aside past its time, and keeps what is still in use', async () => {
  const key = randomUUID();
  const org = randomUUID();
  const past = (days: number) => new Date(Date.now() - days * DAY);
  const hour = (hours: number) => new Date(Date.now() + hours * 3_600_000);
  // Expired staff sessions and sign-in links (a staff link has no member): gone; live ones stay.
  await db.staffSession.createMany({
    data: [
      { tokenHash: `${key}-old`, name: 'r', expiresAt: hour(-1) },
      { tokenHash: `${key}-new`, name: 'r', expiresAt: hour(1) },
    ],
  });
  await db.dashboardLoginLink.createMany({
    data: [
      { tokenHash: `${key}-old`, staffName: 'r', expiresAt: hour(-1) },
      { tokenHash: `${key}-new`, staffName: 'r', expiresAt: hour(1) },
    ],
  });
  // Idempotency: a completed record is replayed forever; one never completed goes after a day.
  await db.idempotencyRecord.createMany({
    data: [
      { organizationId: org, key: 'abandoned', requestHash: 'h', createdAt: past(2) },
      { organizationId: org, key: 'running', requestHash: 'h' },
      { organizationId: org, key: 'completed', requestHash: 'h', createdAt: past(400), completedAt: past(400), responseStatus: 201, responseBody: {} },
    ],
  });
  // DSP callbacks: parked ones past the dead letters' time go; parked recent ones and ones still retried stay.
  const parked = new Date('9999-12-31T00:00:00Z');
  const old = past(config.retention.deadLettersDays + 1);
  await db.dspCallback.createMany({
    data: [
      { dspId: key, url: 'http://127.0.0.1/old-parked', body: '{}', nextAttemptAt: parked, createdAt: old },
      { dspId: key, url: 'http://127.0.0.1/new-parked', body: '{}', nextAttemptAt: parked },
      { dspId: key, url: 'http://127.0.0.1/old-retrying', body: '{}', nextAttemptAt: hour(1), createdAt: old },
    ],
  });

  await applyRetention(db, ch, config.clickhouse.database, []);

  const tokens = { tokenHash: { startsWith: key } };
  expect((await db.staffSession.findMany({ where: tokens })).map((s) => s.tokenHash)).toEqual([`${key}-new`]);
  expect((await db.dashboardLoginLink.findMany({ where: tokens })).map((l) => l.tokenHash)).toEqual([`${key}-new`]);
  expect((await db.idempotencyRecord.findMany({ where: { organizationId: org }, orderBy: { key: 'asc' } })).map((r) => r.key)).toEqual([
    'completed',
    'running',
  ]);
  expect((await db.dspCallback.findMany({ where: { dspId: key }, orderBy: { id: 'asc' } })).map((c) => new URL(c.url).pathname)).toEqual([
    '/new-parked',
    '/old-retrying',
  ]);
  await db.dspCallback.deleteMany({ where: { dspId: key } });
  await db.staffSession.deleteMany({ where: tokens });
  await db.dashboardLoginLink.deleteMany({ where: tokens });
  await db.idempotencyRecord.deleteMany({ where: { organizationId: org } });
});

test('the ledger forgets exported impressions once their view token has expired (+ 1 hour); clicks stay for the click token', async () => {
  const pool = createPgPool(undefined, 2);
  try {
    const org = await newOrg(db);
    const c = await deliverableCampaign(db, org);
    const hoursAgo = (type: TrackedDelivery['type'], hours: number): TrackedDelivery => ({
      type,
      claims: { ...c.claims(1_000_000), kind: 'view' } as never,
      time: new Date(Date.now() - hours * 3_600_000),
    });
    const viewHours = config.delivery.viewTokenTtlSeconds / 3600;
    const batch = [hoursAgo('impression', viewHours + 1.5), hoursAgo('impression', viewHours + 0.5), hoursAgo('click', viewHours + 1.5)];
    await recordDeliveries(pool, batch);
    await until(
      async () => {
        await exportLedgerBatch(pool, ch, config.clickhouse.database, 5000, exportOptions());
        return (await awaitingExport(db, c.campaign.id)) === 0;
      },
      'every delivery exported',
      30_000,
    );
    await pruneDeliveryLedger(pool);
    const left = await db.deliveryLedger.findMany({ where: { campaignId: c.campaign.id } });
    expect(left.map((r) => `${r.auctionId}:${r.eventType}`).sort()).toEqual(
      [`${batch[1].claims.auction_id}:impression`, `${batch[2].claims.auction_id}:click`].sort(),
    );
  } finally {
    await pool.end();
  }
});

test('frequency events go once past the window they count in (+ 1 hour): wins after the provisional minutes, impressions after a day', async () => {
  const pool = createPgPool(undefined, 2);
  try {
    const publisherId = randomUUID();
    const ago = (ms: number) => new Date(Date.now() - ms);
    const provisionalMs = config.frequency.provisionalSeconds * 1000;
    const rows = [
      { kind: 'win', auctionId: 'old-win', at: ago(provisionalMs + 2 * 3_600_000) },
      { kind: 'win', auctionId: 'new-win', at: ago(provisionalMs) },
      { kind: 'impression', auctionId: 'recent-impression', at: ago(provisionalMs + 2 * 3_600_000) },
      { kind: 'impression', auctionId: 'old-impression', at: ago(26 * 3_600_000) },
    ];
    await db.frequencyEvent.createMany({ data: rows.map((r) => ({ ...r, publisherId, userKey: 'u', auctionId: `${publisherId}-${r.auctionId}` })) });
    await pruneShownEvents(pool);
    const left = await db.frequencyEvent.findMany({ where: { publisherId }, orderBy: { auctionId: 'asc' } });
    expect(left.map((e) => e.auctionId.slice(publisherId.length + 1))).toEqual(['new-win', 'recent-impression']);
    await db.frequencyEvent.deleteMany({ where: { publisherId } });
  } finally {
    await pool.end();
  }
});
