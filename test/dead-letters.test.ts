/**
 * Every PostgreSQL -> ClickHouse mover survives a row ClickHouse refuses: the
 * row is set aside as a dead letter with ClickHouse's refusal, the rest of its
 * batch is stored (the event pipeline's own test is test/events/poison.test.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { AuctionLog } from '../auction/log/writer';
import { createClickhouse } from '../lib/clickhouse/client';
import { clickhouseErrorCode, insertSettingAsideRefused, isDataRefusal } from '../lib/clickhouse/refused-rows';
import { sql } from '../lib/clickhouse/sql';
import { config } from '../lib/config';
import { createDb, createPgPool } from '../lib/db';
import { recordDeadLetters } from '../domain/dead-letters/store';
import { awaitingExport, exportLedgerBatch } from '../jobs/delivery-exporter';
import { exportOptions } from '../jobs/delivery-export';
import type { AuctionContext } from '../auction/types';
import { lostBid } from './support/fixtures';
import { until } from './support/wait';
import { newOrg } from './support/harness';
import { deliverableCampaign } from './tracking/support';

const db = createDb(undefined, 2);
const ch = createClickhouse();
let pool: Pool;
beforeAll(() => {
  pool = createPgPool(undefined, 2);
});
afterAll(async () => {
  await pool.end();
  await db.$disconnect();
  await ch.close();
});

const rowsOf = async <T>(query: string) => (await ch.query({ query, format: 'JSONEachRow' })).json<T>();

describe('insertSettingAsideRefused', () => {
  test('isolates the refused rows of a batch and stores the rest; an error that is not about the data is thrown', async () => {
    const table = `${config.clickhouse.database}.auction_bids`;
    const auctionId = randomUUID();
    const good = (i: number) => JSON.stringify({ auction_id: auctionId, bidder_id: `b${i}`, outcome: 'lost' });
    const lines = [good(1), '{"auction_id": "x", "bid_id": "\\ud800"}', good(2), good(3), '{"auction_id": "y", "price_micros": "lots"}', good(4)];
    let inserts = 0;
    const refused = await insertSettingAsideRefused(lines, async (part) => {
      inserts += 1;
      (await ch.exec({ query: `INSERT INTO ${table} FORMAT JSONEachRow ${part.join('\n')}` })).stream.resume();
    });
    expect(refused.map((r) => r.row)).toEqual([lines[1], lines[4]]);
    expect(refused[0].error).toMatch(/surrogate/);
    expect(inserts).toBeLessThanOrEqual(2 * 2 * Math.ceil(Math.log2(lines.length)) + 1);
    expect(
      (await rowsOf<{ bidder_id: string }>(sql`SELECT bidder_id FROM auction_bids WHERE auction_id = ${auctionId} ORDER BY bidder_id`)).map((r) => r.bidder_id),
    ).toEqual(['b1', 'b2', 'b3', 'b4']);

    const missingTable = insertSettingAsideRefused([good(5)], async (part) => {
      (await ch.exec({ query: `INSERT INTO ${config.clickhouse.database}.no_such_table FORMAT JSONEachRow ${part.join('\n')}` })).stream.resume();
    });
    await expect(missingTable).rejects.toThrow(/no_such_table/);
  });

  test('reads the error code of 18.16 and of current servers', () => {
    expect(clickhouseErrorCode(new Error('Code: 25, e.displayText() = DB::Exception: Cannot parse escape sequence'))).toBe(25);
    expect(clickhouseErrorCode(Object.assign(new Error('x'), { code: '27' }))).toBe(27);
    expect(clickhouseErrorCode(new Error('connect ECONNREFUSED 127.0.0.1:8123'))).toBeNull();
    expect(isDataRefusal(new Error("Code: 60, e.displayText() = DB::Exception: Table x doesn't exist."))).toBe(false);
  });
});

describe('the ledger export', () => {
  test('a ledger row ClickHouse refuses is a dead letter; the rows around it reach ClickHouse and the cursor passes all', async () => {
    const c = await deliverableCampaign(db, await newOrg(db));
    const row = (eventId: string, time: string) =>
      db.$executeRawUnsafe(
        `INSERT INTO delivery_ledger (event_id, event_type, event_time, auction_id, source, organization_id, ad_account_id, campaign_id, ad_group_id, ad_id,
                                    dsp_id, bid_id, publisher_id, country, device, detail, price_micros, charged_micros)
       VALUES ($1, 'click', $2::timestamp, $1, 'inhouse', $3, $4, $5, $6, $7, '', '', 'pub', 'DE', 'mobile', '', 0, 0)`,
        eventId,
        time,
        c.campaign.organizationId,
        c.campaign.adAccountId,
        c.campaign.id,
        c.adGroup.id,
        c.ad.id,
      );
    const [before, poisoned, after] = [randomUUID(), randomUUID(), randomUUID()];
    await row(before, new Date().toISOString());
    // A time past what a JavaScript Date holds: its row reaches ClickHouse as a null DateTime, which ClickHouse refuses.
    await row(poisoned, '290000-01-01 00:00:00');
    await row(after, new Date().toISOString());

    await until(
      async () => {
        await exportLedgerBatch(pool, ch, config.clickhouse.database, 5000, exportOptions());
        return (await awaitingExport(db, c.campaign.id)) === 0;
      },
      'every ledger row passed',
      30_000,
    );
    const stored = await rowsOf<{ event_id: string }>(sql`SELECT event_id FROM delivery_events WHERE campaign_id = ${c.campaign.id}`);
    expect(stored.map((r) => r.event_id).sort()).toEqual([before, after].sort());
    const letter = await db.deadLetter.findUniqueOrThrow({ where: { targetTable_rowKey: { targetTable: 'delivery_events', rowKey: poisoned } } });
    expect(letter.error).toMatch(/^Code: \d+/);
    expect(JSON.parse(letter.payload)).toMatchObject({ event_id: poisoned, campaign_id: c.campaign.id });
  });
});

describe('the auction log', () => {
  test('a bid row ClickHouse refuses is a dead letter; the auction and the other bids are stored', async () => {
    const log = new AuctionLog(ch, { batchSize: 1000, flushMs: 60_000, setAside: (letters) => recordDeadLetters(db, letters) });
    const auctionId = randomUUID();
    const ctx = {
      auctionId,
      tmaxMs: 100,
      publisher: { publicId: 'pub' },
      request: { request_type: 'contextual', country_code: 'US', device: 'mobile', ad_formats: ['sponsored_message'] },
    } as unknown as AuctionContext;
    // A bid id the DSP checks would now refuse (a lone surrogate), recorded straight into the log.
    log.record(ctx, null, [lostBid('good-1', 'a'), lostBid('poison', 'x\ud800'), lostBid('good-2', 'b')], 1, null);
    await log.drain();
    const bids = await rowsOf<{ bidder_id: string }>(sql`SELECT bidder_id FROM auction_bids WHERE auction_id = ${auctionId} ORDER BY bidder_id`);
    expect(bids.map((b) => b.bidder_id)).toEqual(['good-1', 'good-2']);
    expect(await rowsOf(sql`SELECT auction_id FROM auctions WHERE auction_id = ${auctionId}`)).toHaveLength(1);
    const letter = await db.deadLetter.findUniqueOrThrow({ where: { targetTable_rowKey: { targetTable: 'auction_bids', rowKey: `${auctionId}:poison` } } });
    expect(letter.error).toMatch(/surrogate/);
    expect(log.queued).toBe(0);
  });
});
