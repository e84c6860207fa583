/**
 * One group-commit flush of the delivery ledger (record_deliveries): what a
 * single batch decides when it holds repeats, several campaigns, the charge
 * that crosses a budget, DSP events and feedback owed to a DSP. The trackers'
 * tests drive it one request at a time; these give it whole batches.
 */
import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { createDb, createPgPool, type Db } from '../../lib/db';
import { recordDeliveries } from '../../domain/delivery/charge';
import type { TrackedDelivery } from '../../domain/delivery/ledger';
import { feedbackCallbackOf } from '../../domain/delivery/dsp-callbacks';
import type { ClickHouseClient } from '@clickhouse/client';
import { awaitingExport, EXPORT_LOCK, exportLedgerBatch, ledgerRowsAfter, pruneLedger } from '../../jobs/delivery-exporter';
import { exportOptions } from '../../jobs/delivery-export';
import { createClickhouse } from '../../lib/clickhouse/client';
import { config } from '../../lib/config';
import { newOrg } from '../support/harness';
import { until } from '../support/wait';
import { clickhouseTotals, deliverableCampaign, spendOf, type Claims } from './support';

let db: Db;
let pool: Pool;
let ch: ClickHouseClient;
beforeAll(() => {
  db = createDb();
  pool = createPgPool();
  ch = createClickhouse();
});
afterAll(async () => {
  await pool.end();
  await db.$disconnect();
  await ch.close();
});

/** Exports (or lets whichever exporter has the turn export) until the campaign's rows are all passed. */
const exportAll = (campaignId: string) =>
  until(
    async () => {
      await exportLedgerBatch(pool, ch, config.clickhouse.database, 5000, exportOptions());
      return (await awaitingExport(db, campaignId)) === 0;
    },
    'every delivery exported',
    30_000,
  );

const PRICE = 1_000_000; // CPM 1 USD: 1,000 micros an impression
const at = (type: TrackedDelivery['type'], claims: Claims): TrackedDelivery => ({ type, claims: { ...claims, kind: 'view' } as never, time: new Date() });

test('a batch: repeats count nothing, the charge that reaches the limit is cut to it, each campaign on its own', async () => {
  const org = await newOrg(db);
  const a = await deliverableCampaign(db, org, { limitMicros: 2_500n }); // the third impression reaches it
  const b = await deliverableCampaign(db, org, { limitMicros: 1_000_000n });
  const a1 = a.claims(PRICE);
  const batch = [
    at('impression', a1),
    at('impression', b.claims(PRICE)),
    at('impression', a.claims(PRICE)),
    at('impression', a1),
    at('impression', a.claims(PRICE)),
    at('impression', a.claims(PRICE)),
    at('click', a1),
    at('impression', b.claims(PRICE)),
  ];
  const exhausted: string[][] = [];
  const outcomes = await recordDeliveries(pool, batch, { onBudgetExhausted: (ids) => exhausted.push(ids) });

  expect(outcomes).toEqual([
    { recorded: true, chargedMicros: 1000 },
    { recorded: true, chargedMicros: 1000 },
    { recorded: true, chargedMicros: 1000 },
    { recorded: false, chargedMicros: 0 }, // the same auction's impression again, in the same batch
    { recorded: true, chargedMicros: 500 }, // spend was 2,000: charged the 500 left, and now exhausted
    { recorded: true, chargedMicros: 0 }, // recorded free once the budget is spent
    { recorded: true, chargedMicros: 0 }, // a CPM campaign's click costs nothing
    { recorded: true, chargedMicros: 1000 },
  ]);
  expect(exhausted).toEqual([[a.campaign.id]]);
  expect(await spendOf(db, a.campaign.id)).toMatchObject({ spent: 2500n, impressions: 4n, clicks: 1n });
  expect((await spendOf(db, a.campaign.id)).exhaustedAt).not.toBeNull();
  expect(await spendOf(db, b.campaign.id)).toMatchObject({ spent: 2000n, impressions: 2n, clicks: 0n, exhaustedAt: null });
  const ledger = await db.deliveryLedger.findMany({ where: { campaignId: a.campaign.id } });
  expect(ledger.reduce((sum, r) => sum + r.chargedMicros, 0n)).toBe(2500n);
  expect(ledger).toHaveLength(5);

  // The whole batch again: every event is a repeat, nothing is charged, nobody is told twice.
  const again = await recordDeliveries(pool, batch, { onBudgetExhausted: (ids) => exhausted.push(ids) });
  expect(again.every((o) => !o.recorded && o.chargedMicros === 0)).toBe(true);
  expect(exhausted).toHaveLength(1);
  expect(await spendOf(db, a.campaign.id)).toMatchObject({ spent: 2500n, impressions: 4n, clicks: 1n });
});

/** A DSP's win of a new auction, with the feedback URL its thumbs up or down is forwarded to. */
function dspWin(priceMicros: number) {
  const auctionId = randomUUID();
  const callbackUrl = `http://127.0.0.1:9/feedback/${auctionId}`;
  const dsp: Claims = {
    auction_id: auctionId,
    publisher_id: randomUUID(),
    price_micros: priceMicros,
    source: 'dsp',
    dsp_id: randomUUID(),
    bid_id: 'b1',
    dsp_feedback_url: callbackUrl,
  };
  return { auctionId, callbackUrl, dsp };
}

test("DSP events are recorded uncharged; the first feedback of an auction queues the DSP's callback, a second verdict nothing", async () => {
  const { auctionId, callbackUrl, dsp } = dspWin(2_000_000);

  const outcomes = await recordDeliveries(pool, [at('impression', dsp), at('thumbs_up', dsp), at('thumbs_down', dsp)], {
    feedbackCallback: feedbackCallbackOf,
  });
  expect(outcomes).toEqual([
    { recorded: true, chargedMicros: 0 },
    { recorded: true, chargedMicros: 0 },
    { recorded: false, chargedMicros: 0 },
  ]);
  const rows = await db.deliveryLedger.findMany({ where: { auctionId }, orderBy: { eventType: 'asc' } });
  expect(rows.map((r) => [r.eventId, r.eventType, r.priceMicros, r.chargedMicros])).toEqual([
    [`${auctionId}:impression`, 'impression', 2000n, 0n],
    [`${auctionId}:feedback`, 'thumbs_up', 0n, 0n],
  ]);
  const callbacks = await db.$queryRaw<{ dsp_id: string; body: string }[]>`SELECT dsp_id, body FROM dsp_callbacks WHERE url = ${callbackUrl}`;
  expect(callbacks.map((c) => ({ dsp_id: c.dsp_id, ...JSON.parse(c.body) }))).toEqual([
    { dsp_id: dsp.dsp_id, feedback: 'thumbs_up', auction_id: auctionId, bid_id: 'b1', timestamp: expect.any(Number) },
  ]);
});

test('two flushes of the same DSP feedback at once: the one that inserts second records nothing and queues no second callback', async () => {
  const { callbackUrl, dsp } = dspWin(0);
  const options = { feedbackCallback: feedbackCallbackOf };
  // The first flush inserts inside a transaction left open, so the second cannot see its row: it
  // passes the repeat check and waits on the ledger's key, then ON CONFLICT skips its row.
  const [first, second] = [await pool.connect(), await pool.connect()];
  try {
    const { rows } = await second.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    await first.query('BEGIN');
    expect(await recordDeliveries(first, [at('thumbs_up', dsp)], options)).toEqual([{ recorded: true, chargedMicros: 0 }]);
    const secondFlush = recordDeliveries(second, [at('thumbs_down', dsp)], options);
    await until(
      async () => (await pool.query(`SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'`, [rows[0].pid])).rowCount === 1,
      "the second flush waiting on the first one's row",
    );
    await first.query('COMMIT');
    expect(await secondFlush).toEqual([{ recorded: false, chargedMicros: 0 }]);
  } finally {
    first.release();
    second.release();
  }
  const callbacks = await db.$queryRaw<{ body: string }[]>`SELECT body FROM dsp_callbacks WHERE url = ${callbackUrl}`;
  expect(callbacks.map((c) => JSON.parse(c.body).feedback)).toEqual(['thumbs_up']);
});

test('pruning forgets exported deliveries no token can name any more (token TTL + 1 day), and only those', async () => {
  const org = await newOrg(db);
  const c = await deliverableCampaign(db, org);
  const day = 86_400_000;
  const aged = (days: number) => ({ ...at('impression', c.claims(PRICE)), time: new Date(Date.now() - days * day) });
  const batch = [aged(10), aged(7.5), aged(0)];
  // Holding the export's turn, so that no exporter passes them meanwhile: not exported yet, nothing goes, however old.
  const turn = await pool.connect();
  await turn.query('SELECT pg_advisory_lock($1)', [EXPORT_LOCK]);
  try {
    await recordDeliveries(pool, batch);
    await pruneLedger(pool, 7 * 86_400);
    expect(await db.deliveryLedger.count({ where: { campaignId: c.campaign.id } })).toBe(3);
  } finally {
    await turn.query('SELECT pg_advisory_unlock($1)', [EXPORT_LOCK]);
    turn.release();
  }
  await exportAll(c.campaign.id);
  await pruneLedger(pool, 7 * 86_400); // a week's tokens: rows older than 8 days go
  const left = await db.deliveryLedger.findMany({ where: { campaignId: c.campaign.id } });
  expect(left.map((r) => r.auctionId).sort()).toEqual([batch[1].claims.auction_id, batch[2].claims.auction_id].sort());
});

test('the export never passes a row whose transaction may still commit: it waits, then sends each row once', async () => {
  const org = await newOrg(db);
  // Two campaigns: the open flush holds its campaign's spend row until it commits.
  const early = await deliverableCampaign(db, org);
  const late = await deliverableCampaign(db, org);
  // A flush whose transaction stays open, then one that commits after it started (a later txid).
  const open = await pool.connect();
  try {
    await open.query('BEGIN');
    await recordDeliveries(open, [at('impression', early.claims(PRICE))]);
    await recordDeliveries(pool, [at('impression', late.claims(PRICE))]);
    await exportLedgerBatch(pool, ch, config.clickhouse.database, 5000, exportOptions());
    // The committed row is not passed while the earlier transaction may still commit before it.
    expect(await awaitingExport(db, late.campaign.id)).toBe(1);
    await open.query('COMMIT');
  } finally {
    open.release();
  }
  await exportAll(early.campaign.id);
  await exportAll(late.campaign.id);
  for (const c of [early, late]) expect(await clickhouseTotals(c.campaign.id)).toEqual({ rows: 1, impressions: 1, clicks: 0, spend: 1_000n });
});

test('the export reads the ledger in number order: a transaction whose seq crosses a power of ten, cut into batches, sends each row once', async () => {
  const org = await newOrg(db);
  const c = await deliverableCampaign(db, org);
  const turn = await pool.connect();
  try {
    await turn.query('SELECT pg_advisory_lock($1)', [EXPORT_LOCK]); // no exporter passes them meanwhile
    await recordDeliveries(
      pool,
      Array.from({ length: 6 }, () => at('impression', c.claims(PRICE))),
    );
    // One flush, one transaction: its rows renumbered 97..102, across 100 ('100' sorts before '99' as text).
    await turn.query(
      `UPDATE delivery_ledger l SET seq = 96 + r.n
         FROM (SELECT event_id, row_number() OVER (ORDER BY seq) AS n FROM delivery_ledger WHERE campaign_id = $1) r
        WHERE l.event_id = r.event_id`,
      [c.campaign.id],
    );
    const { txid } = (await turn.query<{ txid: string }>('SELECT DISTINCT txid::text FROM delivery_ledger WHERE campaign_id = $1', [c.campaign.id])).rows[0];
    const seqsAfter = async (seq: string) => (await ledgerRowsAfter(turn, { txid, seq }, 3)).map((r) => [r.txid, r.seq]);
    // Readable once no transaction older than it is still open (another test file's may be).
    await until(async () => (await seqsAfter('0')).length > 0, 'the flush readable by the export');
    expect(await seqsAfter('0')).toEqual([
      [txid, '97'],
      [txid, '98'],
      [txid, '99'],
    ]);
    expect(await seqsAfter('99')).toEqual([
      [txid, '100'],
      [txid, '101'],
      [txid, '102'],
    ]);
  } finally {
    await turn.query('SELECT pg_advisory_unlock($1)', [EXPORT_LOCK]);
    turn.release();
  }
  await exportAll(c.campaign.id);
  expect(await clickhouseTotals(c.campaign.id)).toEqual({ rows: 6, impressions: 6, clicks: 0, spend: 6_000n });
});
