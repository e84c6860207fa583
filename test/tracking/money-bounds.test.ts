/**
 * What a tracking token may charge, whatever it claims (hardening round two):
 * the ledger bounds a charge by the ad group's max bid, the campaign's pricing
 * model, the ad's own campaign, whether the campaign may serve at the event's
 * time, and what is left of the budget; a token signed with any other secret
 * counts nothing; view tokens live minutes; a DSP's revenue is never above the
 * auction log's record of its win.
 */
import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { parseSigningKeys, signToken } from '../../lib/signed-token';
import { config } from '../../lib/config';
import { createClickhouse } from '../../lib/clickhouse/client';
import { sql } from '../../lib/clickhouse/sql';
import { createPgPool } from '../../lib/db';
import { EXPORT_LOCK, exportHeldImpressions, exportLedgerBatch } from '../../jobs/delivery-exporter';
import { holdRows } from '../../domain/delivery/dsp-revenue';
import { runningInsertsSql } from '../../lib/clickhouse/running-inserts';
import { recordDeliveries } from '../../domain/delivery/charge';
import type { TrackedDelivery } from '../../domain/delivery/ledger';
import { TRACKING_PATHS } from '../../domain/delivery/tracking-token';
import { baseClaims, deliveryUrls } from '../../auction/tracking';
import { newOrg, useHarness } from '../support/harness';
import { until } from '../support/wait';
import { deliverableCampaign, get, ledgerRows, spendOf, trackerUrl, type Claims } from './support';

let pool: Pool;
const ch = createClickhouse();
const h = useHarness([{ close: () => pool.end() }, ch]);
beforeAll(() => {
  pool = createPgPool();
});

const RUNNING_DELIVERY_INSERTS = runningInsertsSql([`${config.clickhouse.database}.dsp_delivery_events`]);
const view = (claims: Claims) => get(trackerUrl(h.url, 'view', claims));
const at = (type: TrackedDelivery['type'], claims: Claims): TrackedDelivery => ({ type, claims: { ...claims, kind: 'view' } as never, time: new Date() });

describe('a charge is bounded by what the database knows, not by the token', () => {
  test("a price far above the ad group's max bid charges the max bid (a forged 1e12 CPM on a $5 campaign)", async () => {
    const c = await deliverableCampaign(h.db, await newOrg(h.db), { limitMicros: 5_000_000n, maxBidMicros: 2_000_000n });
    expect((await view(c.claims(1e12))).status).toBe(200);
    expect(await spendOf(h.db, c.campaign.id)).toMatchObject({ spent: 2_000n, impressions: 1n }); // CPM 2 USD: 2,000 micros
  });

  test('an ad group without a max bid is bounded by the default CPM (1 USD)', async () => {
    const c = await deliverableCampaign(h.db, await newOrg(h.db));
    await h.db.adGroup.update({ where: { id: c.adGroup.id }, data: { maxBidMicros: null } });
    expect((await view(c.claims(50_000_000))).status).toBe(200);
    expect((await spendOf(h.db, c.campaign.id)).spent).toBe(1_000n);
  });

  test("a cpc campaign's click charges at most its max CPC; a cpm campaign pays for no click, whatever the token says", async () => {
    const org = await newOrg(h.db);
    const cpc = await deliverableCampaign(h.db, org, { pricingModel: 'cpc', maxBidMicros: 300_000n });
    const click = (claims: Claims) => get(trackerUrl(h.url, 'click', { ...claims, url: 'https://shoes.example/' }));
    expect((await click(cpc.claims(1_000_000, { cpc_micros: 9_000_000 }))).status).toBe(302);
    expect((await spendOf(h.db, cpc.campaign.id)).spent).toBe(300_000n);

    const cpm = await deliverableCampaign(h.db, org);
    expect((await click(cpm.claims(1_000_000, { pricing_model: 'cpc', cpc_micros: 400_000 }))).status).toBe(302);
    expect((await spendOf(h.db, cpm.campaign.id)).spent).toBe(0n);
  });

  test("a token naming one campaign with another campaign's ad charges nothing", async () => {
    const org = await newOrg(h.db);
    const rich = await deliverableCampaign(h.db, org, { limitMicros: 100_000_000n });
    const other = await deliverableCampaign(h.db, org);
    expect((await view(rich.claims(1_000_000, { ad_id: other.ad.id, ad_group_id: other.adGroup.id }))).status).toBe(200);
    expect((await spendOf(h.db, rich.campaign.id)).spent).toBe(0n);
  });

  test('a limit that is an exact multiple of the price: the third charge is 0', async () => {
    const c = await deliverableCampaign(h.db, await newOrg(h.db), { limitMicros: 2_000n });
    const outcomes = await recordDeliveries(pool, [
      at('impression', c.claims(1_000_000)),
      at('impression', c.claims(1_000_000)),
      at('impression', c.claims(1_000_000)),
    ]);
    expect(outcomes.map((o) => o.chargedMicros)).toEqual([1_000, 1_000, 0]);
    expect((await spendOf(h.db, c.campaign.id)).spent).toBe(2_000n);
  });

  test('the charge that would pass the limit is cut to what is left', async () => {
    const c = await deliverableCampaign(h.db, await newOrg(h.db), { limitMicros: 2_500n });
    for (let i = 0; i < 4; i += 1) expect((await view(c.claims(1_000_000))).status).toBe(200);
    const charged = (await h.db.deliveryLedger.findMany({ where: { campaignId: c.campaign.id }, orderBy: { seq: 'asc' } })).map((r) => r.chargedMicros);
    expect(charged).toEqual([1_000n, 1_000n, 500n, 0n]);
    expect((await spendOf(h.db, c.campaign.id)).spent).toBe(2_500n);
  });
});

describe('impressions charge only while the campaign may serve', () => {
  test.each([
    ['paused', { status: 'paused' }],
    ['archived', { status: 'archived' }],
    ['blocked', { lifecycleState: 'blocked', lifecycleReason: 'policy' }],
    ['not approved', { reviewStatus: 'rejected' }],
    ['ended', { endTime: new Date(Date.now() - 1_000) }],
    ['not started', { startTime: new Date(Date.now() + 3_600_000) }],
  ] as const)('a view token minted before the campaign was %s is recorded, uncharged', async (_label, change) => {
    const c = await deliverableCampaign(h.db, await newOrg(h.db), { maxBidMicros: 40_000_000n });
    const before = c.claims(40_000_000); // 40,000 micros an impression
    expect((await view(c.claims(40_000_000))).status).toBe(200);
    expect((await spendOf(h.db, c.campaign.id)).spent).toBe(40_000n);

    await h.db.campaign.update({ where: { id: c.campaign.id }, data: change });
    expect((await view(before)).status).toBe(200);
    expect((await spendOf(h.db, c.campaign.id)).spent).toBe(40_000n);
    expect(await ledgerRows(h.db, [before.auction_id])).toEqual([expect.objectContaining({ eventType: 'impression', chargedMicros: 0n })]);
  });

  test('a paused ad group or ad charges nothing either', async () => {
    const org = await newOrg(h.db);
    const group = await deliverableCampaign(h.db, org);
    await h.db.adGroup.update({ where: { id: group.adGroup.id }, data: { status: 'paused' } });
    const ad = await deliverableCampaign(h.db, org);
    await h.db.ad.update({ where: { id: ad.ad.id }, data: { status: 'paused' } });
    expect((await view(group.claims(1_000_000))).status).toBe(200);
    expect((await view(ad.claims(1_000_000))).status).toBe(200);
    expect((await spendOf(h.db, group.campaign.id)).spent).toBe(0n);
    expect((await spendOf(h.db, ad.campaign.id)).spent).toBe(0n);
  });
});

describe('signatures and lifetimes', () => {
  test('a payload re-signed with the right key id and a wrong secret: no charge, and 404 on click', async () => {
    const c = await deliverableCampaign(h.db, await newOrg(h.db));
    const kid = parseSigningKeys(config.signing.trackingKeys!).currentKid;
    const wrong = parseSigningKeys(`${kid}:not-the-secret-of-this-deployment`);
    const forge = (kind: 'view' | 'click', claims: Claims) => `${h.url}${TRACKING_PATHS[kind]}?token=${signToken({ ...claims, kind }, 3600, wrong)}`;
    const claims = c.claims(1_000_000);
    expect((await get(forge('view', claims))).status).toBe(200); // the pixel always answers
    expect((await get(forge('click', { ...claims, url: 'https://attacker.example/' }))).status).toBe(404);
    expect(await ledgerRows(h.db, [claims.auction_id])).toEqual([]);
    expect((await spendOf(h.db, c.campaign.id)).spent).toBe(0n);
  });

  test('the auction signs view URLs for minutes and click URLs for days, each from its own variable', () => {
    const claims = baseClaims(
      { auctionId: randomUUID(), publisher: { publicId: 'pub' } as never, request: { country_code: 'US', device: 'mobile' } as never },
      { bidderId: 'd', bidId: 'b', priceMicros: 1_000_000, kind: 'openrtb' } as never,
    );
    // A token is <kid>.<exp>.<claims>.<signature> (lib/signed-token.ts).
    const expOf = (url: string) => Number(new URL(url).searchParams.get('token')!.split('.')[1]);
    const trackingUrl = deliveryUrls(claims);
    const now = Date.now() / 1000;
    expect(expOf(trackingUrl('view')) - now).toBeCloseTo(config.delivery.viewTokenTtlSeconds, -1);
    expect(expOf(trackingUrl('click', { url: 'https://x.example/' })) - now).toBeCloseTo(config.delivery.clickTokenTtlSeconds, -1);
    expect(config.delivery.viewTokenTtlSeconds).toBe(1800);
    expect(config.delivery.clickTokenTtlSeconds).toBe(7 * 86_400);
  });
});

describe("a DSP's revenue is never above the auction log's record", () => {
  const dspImpression = (auctionId: string, dspId: string, priceMicros: number): Claims => ({
    auction_id: auctionId,
    publisher_id: randomUUID(),
    price_micros: priceMicros,
    source: 'dsp',
    dsp_id: dspId,
    bid_id: 'bid-1',
    country: 'US',
    device: 'mobile',
  });
  /** The auction log's row of an auction this DSP's bid 'bid-1' won at CPM 1.00 USD. */
  const recordWin = (auctionId: string, dspId: string) =>
    ch.insert({
      table: 'auctions',
      format: 'JSONEachRow',
      values: [
        {
          auction_id: auctionId,
          event_time: Math.floor(Date.now() / 1000),
          publisher_id: 'p',
          winner_bidder: dspId,
          winner_bid_id: 'bid-1',
          price_micros: 1_000_000,
          filled: 1,
        },
      ],
    });
  const revenueOf = async (auctionId: string) => {
    const rows = await (
      await ch.query({ query: sql`SELECT revenue_micros FROM dsp_delivery_events FINAL WHERE auction_id = ${auctionId}`, format: 'JSONEachRow' })
    ).json<{ revenue_micros: number }>();
    return rows.map((r) => Number(r.revenue_micros));
  };
  /** How many ledger rows of these auctions the export cursor has not passed yet. */
  const awaitingExportOf = async (auctionIds: string[]) => {
    const { rows } = await pool.query<{ count: string }>(
      `SELECT count(*) FROM delivery_ledger l, delivery_export_cursor c
        WHERE c.id = 1 AND (l.txid, l.seq) > (c.txid, c.seq) AND l.auction_id = ANY($1::text[])`,
      [auctionIds],
    );
    return Number(rows[0].count);
  };
  const exportAll = async (opts: { revenueGraceSeconds: number }) => {
    const options = { viewTokenTtlSeconds: config.delivery.viewTokenTtlSeconds, ...opts };
    while ((await exportLedgerBatch(pool, ch, config.clickhouse.database, 5000, options)) > 0) {
      /* until the cursor is through */
    }
    await exportHeldImpressions(pool, ch, config.clickhouse.database, options);
  };

  test('a token price above the recorded win is cut to it; an impression whose auction was never recorded earns nothing once its wait is over', async () => {
    const dspId = randomUUID();
    const recorded = randomUUID();
    const unrecorded = randomUUID();
    await recordWin(recorded, dspId); // the first auction: this DSP's bid won at CPM 1.00 USD
    await recordDeliveries(pool, [at('impression', dspImpression(recorded, dspId, 5_000_000)), at('impression', dspImpression(unrecorded, dspId, 5_000_000))]);
    expect((await ledgerRows(h.db, [recorded]))[0]).toMatchObject({ priceMicros: 5_000n }); // the ledger keeps what the token said

    // An export sends its batch to ClickHouse, then holds what waits for its record and moves its cursor
    // in one transaction; the test run's worker may be the exporter. Wait for the cursor past both rows:
    // the recorded row already in ClickHouse does not mean the other is held yet.
    await until(async () => {
      await exportAll({ revenueGraceSeconds: 3_600 });
      return (await awaitingExportOf([recorded, unrecorded])) === 0;
    }, 'the export past both impressions');
    expect(await revenueOf(recorded)).toEqual([1_000]);
    expect(await revenueOf(unrecorded)).toEqual([]); // held: its record may still arrive
    expect(await h.db.deliveryExportHeld.count({ where: { eventId: `${unrecorded}:impression` } })).toBe(1);

    await until(async () => {
      await exportAll({ revenueGraceSeconds: 0 });
      return (await revenueOf(unrecorded)).length === 1;
    }, 'the held impression released');
    expect(await revenueOf(unrecorded)).toEqual([0]);
    expect(await h.db.deliveryExportHeld.count({ where: { eventId: `${unrecorded}:impression` } })).toBe(0);
  });

  test("after a held export died mid-send, the next waits for the dead exporter's insert still running before it looks up and sends", async () => {
    const dspId = randomUUID();
    const auctionId = randomUUID();
    const eventId = `${auctionId}:impression`;
    await recordWin(auctionId, dspId);
    const ids = {
      event_id: eventId,
      event_type: 'impression',
      event_ms: String(Date.now()),
      auction_id: auctionId,
      source: 'dsp',
      dsp_id: dspId,
      bid_id: 'bid-1',
    };
    const row = {
      ...Object.fromEntries(['organization_id', 'ad_account_id', 'campaign_id', 'ad_group_id', 'ad_id'].map((column) => [column, ''])),
      ...ids,
      ...{ publisher_id: randomUUID(), country: 'US', device: 'mobile', price_micros: '1000', charged_micros: '0' },
    };
    // The dead exporter's state, set up holding the export's turn: the row held and ready, its send
    // marked in flight, and an insert into the DSP rows still running in ClickHouse (2 s in the server).
    const turn = await pool.connect();
    let insertEnded = Infinity;
    let slowInsert: Promise<void>;
    try {
      await turn.query('SELECT pg_advisory_lock($1)', [EXPORT_LOCK]);
      await holdRows(turn, [row]);
      await turn.query('UPDATE delivery_export_cursor SET held_in_flight = true WHERE id = 1');
      slowInsert = ch
        .command({
          query: `INSERT INTO ${config.clickhouse.database}.dsp_delivery_events (event_id) SELECT concat('${randomUUID()}-', toString(sleepEachRow(1) + number)) FROM system.numbers LIMIT 2`,
        })
        .then(() => {
          insertEnded = Date.now();
        });
      await until(
        async () => Number((await (await ch.query({ query: RUNNING_DELIVERY_INSERTS, format: 'JSONEachRow' })).json<{ running: number }>())[0].running) > 0,
        'the insert under way',
      );
    } finally {
      await turn.query('SELECT pg_advisory_unlock($1)', [EXPORT_LOCK]);
      turn.release();
    }
    // Whichever exporter has the turn next (this one or the test run's worker) releases the row, after the insert ended.
    await until(async () => {
      await exportHeldImpressions(pool, ch, config.clickhouse.database, {
        viewTokenTtlSeconds: config.delivery.viewTokenTtlSeconds,
        revenueGraceSeconds: 3_600,
      });
      return (await h.db.deliveryExportHeld.count({ where: { eventId } })) === 0;
    }, 'the held impression released');
    const releasedAt = Date.now();
    await slowInsert!;
    expect(releasedAt).toBeGreaterThanOrEqual(insertEnded);
    expect(await revenueOf(auctionId)).toEqual([1_000]);
    expect((await h.db.deliveryExportCursor.findUnique({ where: { id: 1 } }))?.heldInFlight).toBe(false);
  });
});
