/**
 * Raw data has a time to live: whole months past it are dropped from the raw
 * ClickHouse tables, and old dead letters deleted (jobs/retention.ts).
 */
import { randomUUID } from 'node:crypto';
import { createClickhouse } from '../lib/clickhouse/client';
import { sql } from '../lib/clickhouse/sql';
import { dropExpiredPartitions } from '../lib/clickhouse/retention';
import { config } from '../lib/config';
import { createDb } from '../lib/db';
import { applyRetention, rawTableRetention } from '../jobs/retention';

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
  ).toEqual(['auction_bids', 'auctions', 'collected_events', 'delivery_events', 'dsp_delivery_events', 'inhouse_stats', 'publisher_fill_formats']);
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
