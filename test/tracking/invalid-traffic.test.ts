/**
 * General invalid traffic at the trackers, through a real api (PostgreSQL
 * ledger and spend, ClickHouse export): a pixel or click with another user
 * agent than its auction's, a bot's, or from another network is recorded as
 * invalid and charged nothing; impressions beyond the per-minute burst
 * thresholds of a user key or network stop being charged; the api counts
 * each by reason. Pixels come from loopback: 127.0.0.1 (the auction's /24)
 * or 127.0.1.1 (another /24, the client socket bound to it).
 */
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { config } from '../../lib/config';
import { createClickhouse } from '../../lib/clickhouse/client';
import { publisherReport } from '../../auction/reports/report';
import { campaignDelivery } from '../../domain/serving/diagnostics';
import { trafficBinding } from '../../domain/delivery/invalid-traffic';
import { newOrg, useHarness } from '../support/harness';
import { clickhouseTotals, deliverableCampaign, exportedToClickhouse, ledgerRows, spendOf, trackerUrl, type Claims } from './support';
import { BROWSER_UA } from '../auction/support';

// Low thresholds for this file's api (the ledger reads them on every flush).
config.delivery.burst.perUserPerMinute = 3;
config.delivery.burst.perNetworkPerMinute = 5;

const h = useHarness();

/** A GET from a loopback address of our choice, with the user agent given (none when undefined). */
function fire(url: string, userAgent: string | undefined, localAddress = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { localAddress, headers: userAgent === undefined ? {} : { 'user-agent': userAgent } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
  });
}

/** The auction of these claims saw a browser at 127.0.0.42 (the /24 of 127.0.0.1). */
const bound = (claims: Claims): Claims => ({ ...claims, ...trafficBinding(BROWSER_UA, '127.0.0.42') });

/** The counter's value for these labels in the api's metrics (0 when absent). */
async function invalidCount(type: string, reason: string): Promise<number> {
  const text = await (await fetch(h.metricsUrl)).text();
  const line = text.split('\n').find((l) => l.startsWith(`api_invalid_traffic_total{type="${type}",reason="${reason}"} `));
  return Number(line?.split(' ').pop() ?? 0);
}

/** Burst counts are per UTC minute: a run that straddles one would count in two. */
async function clearOfMinuteEdge(): Promise<void> {
  const toNextMinute = 60_000 - (Date.now() % 60_000);
  if (toNextMinute < 15_000) await new Promise((r) => setTimeout(r, toNextMinute + 500));
}

describe('a pixel that is not the auction user', () => {
  test('another user agent, none, a bot, or another network: recorded as invalid, charged nothing, counted; the user charges', async () => {
    const c = await deliverableCampaign(h.db, await newOrg(h.db));
    const publisher = randomUUID();
    const before = {
      user_agent_mismatch: await invalidCount('impression', 'user_agent_mismatch'),
      bot_user_agent: await invalidCount('impression', 'bot_user_agent'),
      network_mismatch: await invalidCount('impression', 'network_mismatch'),
    };
    const cases = [
      {
        claims: bound(c.claims(1_000_000, { publisher_id: publisher })),
        ua: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
        from: '127.0.0.1',
        reason: 'user_agent_mismatch',
      },
      { claims: bound(c.claims(1_000_000, { publisher_id: publisher })), ua: undefined, from: '127.0.0.1', reason: 'user_agent_mismatch' },
      {
        claims: bound(c.claims(1_000_000, { publisher_id: publisher })),
        ua: 'Googlebot/2.1 (+http://www.google.com/bot.html)',
        from: '127.0.0.1',
        reason: 'bot_user_agent',
      },
      { claims: bound(c.claims(1_000_000, { publisher_id: publisher })), ua: BROWSER_UA, from: '127.0.1.1', reason: 'network_mismatch' },
      { claims: bound(c.claims(1_000_000, { publisher_id: publisher })), ua: BROWSER_UA, from: '127.0.0.1', reason: '' },
    ];
    for (const k of cases) expect(await fire(trackerUrl(h.url, 'view', k.claims), k.ua, k.from)).toBe(200);

    const rows = await ledgerRows(
      h.db,
      cases.map((k) => k.claims.auction_id),
    );
    const byAuction = new Map(rows.map((r) => [r.auctionId, r]));
    for (const k of cases) {
      expect(byAuction.get(k.claims.auction_id)).toMatchObject({ eventType: 'impression', invalidReason: k.reason, chargedMicros: k.reason ? 0n : 1000n });
    }
    expect(await spendOf(h.db, c.campaign.id)).toMatchObject({ spent: 1000n, impressions: 5n });
    expect(await invalidCount('impression', 'user_agent_mismatch')).toBe(before.user_agent_mismatch + 2);
    expect(await invalidCount('impression', 'bot_user_agent')).toBe(before.bot_user_agent + 1);
    expect(await invalidCount('impression', 'network_mismatch')).toBe(before.network_mismatch + 1);

    // Money reconciles: ClickHouse holds every row; insights count the valid impression and its spend only.
    await exportedToClickhouse(h, c.campaign.id);
    expect(await clickhouseTotals(c.campaign.id)).toEqual({ rows: 5, impressions: 1, clicks: 0, spend: 1000n });

    // The publisher's report and the advertiser's delivery diagnostics count the invalid ones by reason.
    const ch = createClickhouse();
    try {
      const deps = { db: h.db, ch, database: config.clickhouse.database };
      const day = new Date().toISOString().slice(0, 10);
      const report = await publisherReport(deps, { publicId: publisher, test: false }, { start_date: day, end_date: day, granularity: 'daily' });
      expect(report.totals).toMatchObject({
        impressions: 1,
        revenue_micros: 1000,
        invalid_impressions: 4,
        invalid_clicks: 0,
        invalid_traffic: { bot_user_agent: 1, network_mismatch: 1, user_agent_mismatch: 2 },
      });
      const diagnostics = await campaignDelivery(deps, null, c.campaign.id);
      expect(diagnostics.traffic).toMatchObject({
        invalid_impressions: 4,
        invalid_clicks: 0,
        invalid_traffic: { bot_user_agent: 1, network_mismatch: 1, user_agent_mismatch: 2 },
      });
    } finally {
      await ch.close();
    }
  });

  test("a CPC click with another user agent redirects but is not charged; the auction user's click is", async () => {
    const c = await deliverableCampaign(h.db, await newOrg(h.db), { pricingModel: 'cpc', maxBidMicros: 400_000n });
    const other = bound(c.claims(1_000_000, { url: 'https://advertiser.example/landing' }));
    const own = bound(c.claims(1_000_000, { url: 'https://advertiser.example/landing' }));
    expect(await fire(trackerUrl(h.url, 'click', other), 'curl/8.5.0')).toBe(302);
    expect(await fire(trackerUrl(h.url, 'click', own), BROWSER_UA)).toBe(302);
    const rows = await ledgerRows(h.db, [other.auction_id, own.auction_id]);
    expect(rows.map((r) => [r.auctionId, r.invalidReason, r.chargedMicros])).toEqual(
      expect.arrayContaining([
        [other.auction_id, 'bot_user_agent', 0n],
        [own.auction_id, '', 400_000n],
      ]),
    );
    expect((await spendOf(h.db, c.campaign.id)).spent).toBe(400_000n);
  });
});

describe('bursts', () => {
  test('beyond 3 impressions a minute of one user key for a publisher, the rest of the minute is not charged; another publisher is unaffected', async () => {
    await clearOfMinuteEdge();
    const c = await deliverableCampaign(h.db, await newOrg(h.db));
    const publisher = randomUUID();
    const user = randomUUID().slice(0, 16);
    // Five from one network: at its threshold, not over it, so only the user key's count applies.
    const claims = Array.from({ length: 5 }, () => bound(c.claims(1_000_000, { publisher_id: publisher, user_key: user })));
    const before = await invalidCount('impression', 'burst');
    for (const k of claims) expect(await fire(trackerUrl(h.url, 'view', k), BROWSER_UA)).toBe(200);
    const elsewhere = bound(c.claims(1_000_000, { user_key: user }));
    expect(await fire(trackerUrl(h.url, 'view', elsewhere), BROWSER_UA)).toBe(200);

    const rows = await ledgerRows(
      h.db,
      [...claims, elsewhere].map((k) => k.auction_id),
    );
    const reasonOf = new Map(rows.map((r) => [r.auctionId, r.invalidReason]));
    expect(claims.map((k) => reasonOf.get(k.auction_id))).toEqual(['', '', '', 'burst', 'burst']);
    expect(reasonOf.get(elsewhere.auction_id)).toBe('');
    expect(await spendOf(h.db, c.campaign.id)).toMatchObject({ spent: 4000n, impressions: 6n });
    expect(await invalidCount('impression', 'burst')).toBe(before + 2);
  });

  test('beyond 5 impressions a minute from one network for a publisher (distinct users), the rest is not charged', async () => {
    await clearOfMinuteEdge();
    const c = await deliverableCampaign(h.db, await newOrg(h.db));
    const publisher = randomUUID();
    const claims = Array.from({ length: 7 }, () => bound(c.claims(1_000_000, { publisher_id: publisher, user_key: randomUUID().slice(0, 16) })));
    // Fired at once: they share flushes, and the batch's own order counts as the stored count does.
    const statuses = await Promise.all(claims.map((k) => fire(trackerUrl(h.url, 'view', k), BROWSER_UA)));
    expect(statuses).toEqual(claims.map(() => 200));
    const rows = await ledgerRows(
      h.db,
      claims.map((k) => k.auction_id),
    );
    expect(rows.filter((r) => r.invalidReason === 'burst')).toHaveLength(2);
    expect(rows.filter((r) => r.invalidReason === '')).toHaveLength(5);
    expect((await spendOf(h.db, c.campaign.id)).spent).toBe(5000n);
  });
});
