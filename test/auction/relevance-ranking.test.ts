/**
 * Relevance in the real auction (docs/api-behaviour.md, "Ranking by price and
 * relevance"): among our eligible ads the rank is the bid times the relevance
 * and the winner pays its own bid, to the micro; a publisher's min_relevance
 * (adctl publisher update --min-relevance) keeps a loosely relevant ad off its
 * pages; the auction log's winner_relevance holds the served ad's score.
 * Each test's campaigns target a country of its own (no other test file's
 * campaigns or requests there). The relevance model is fitted and refitted
 * (bench/relevance): each test first checks, through the model and the
 * auction's own indexed profiles, that its data are as clear as it needs.
 */
import { randomBytes } from 'node:crypto';
import { readConversation } from '../../auction/inhouse/relevance';
import { createClickhouse } from '../../lib/clickhouse/client';
import { sql } from '../../lib/clickhouse/sql';
import { DEFAULT_MIN_RELEVANCE, relevanceOf } from '../../domain/relevance/score';
import { adctl } from '../support/cli';
import { insertTree } from '../support/fixtures';
import { newOrg } from '../support/harness';
import { useApiAndAuction } from '../support/api-and-auction';
import { spendOf } from '../tracking/support';
import { adRequest, BROWSER_UA, contextualRequest, loggedBids, startAuction, until, type AuctionHarness } from './support';

const { api, h, live } = useApiAndAuction();

/** About sourdough, and about bread by its very word. */
const SOURDOUGH = [
  { role: 'user', content: 'My sourdough starter is not rising and the bread comes out flat. How do I fix my sourdough?' },
  { role: 'assistant', content: 'Feed your sourdough starter twice a day and let the dough proof longer before baking the bread.' },
];
/** The ad groups: one exactly about it, one a bakery's delivery of cakes that names bread (relevant, but far less). */
const STARTER_KIT = { hints: ['sourdough bread', 'sourdough starter'], title: 'Sourdough starter kit', body: 'Bake crusty loaves at home' };
const BAKERY = { hints: ['bread'], title: 'Bakery delivery', body: 'Fresh pastries and cakes at your door' };

/** A live CPM campaign of an organization of its own, targeting `country`, indexed by every auction given. */
async function liveCampaign(country: string, group: typeof STARTER_KIT, maxBidMicros: bigint, auctions: AuctionHarness[] = [h]) {
  const org = await newOrg(api.db);
  await api.db.adAccount.updateMany({ where: { organization: { publicId: org.org_public_id } }, data: { logoUrl: 'https://cdn.example/logo.png' } });
  const tree = await insertTree(api.db, org, {
    campaign: { status: 'active', reviewStatus: 'approved', startTime: new Date(Date.now() - 3_600_000), targetCountries: [country] },
    adGroup: { contextHints: group.hints, maxBidMicros },
    ad: { title: group.title, body: group.body },
  });
  live.push(tree.campaign.id);
  for (const a of auctions) await until(() => a.auction.deps.catalog.ads.some((x) => x.adId === tree.ad.id), 'the ad in the index');
  return tree;
}

/** The relevance the auction computes for this ad against the conversation: the same model, the ad's indexed profile. */
function scoreOf(adId: string, messages = SOURDOUGH): number {
  const ad = h.auction.deps.catalog.ads.find((x) => x.adId === adId);
  if (!ad) throw new Error(`ad ${adId} not indexed`);
  return relevanceOf(readConversation(messages), ad.relevance);
}

const ask = (a: AuctionHarness, country: string) => adRequest(a, contextualRequest({ country_code: country, messages: SOURDOUGH }));

/** The auction's row in the auction log (flushed first). */
async function auctionRow(a: AuctionHarness, auctionId: string) {
  await a.auction.deps.log.flush();
  const ch = createClickhouse();
  try {
    const rs = await ch.query({
      query: sql`SELECT filled, winner_ad_id, price_micros, no_fill_reason, winner_relevance FROM auctions WHERE auction_id = ${auctionId}`,
      format: 'JSONEachRow',
    });
    const rows = await rs.json<{ filled: number; winner_ad_id: string; price_micros: string | number; no_fill_reason: string; winner_relevance: number }>();
    expect(rows).toHaveLength(1);
    return { ...rows[0], price_micros: Number(rows[0].price_micros) };
  } finally {
    await ch.close();
  }
}

/** The auction's auction_served_relevance histogram: how many in-house ads it served and their relevances' sum. */
async function servedRelevanceMetric(): Promise<{ count: number; sum: number }> {
  const text = await (await fetch(h.metricsUrl)).text();
  const read = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  return { count: read('auction_served_relevance_count'), sum: read('auction_served_relevance_sum') };
}

/** The served ad's impression pixel, fired as the user's browser would (through the api's tracker), and its charge recorded. */
async function impression(ad: { view_url: string }, campaignId: string) {
  const pixel = new URL(ad.view_url);
  expect((await fetch(`${api.url}${pixel.pathname}${pixel.search}`, { headers: { 'user-agent': BROWSER_UA } })).status).toBe(200);
  await until(async () => (await spendOf(api.db, campaignId)).impressions === 1n, 'the impression in the spend');
  return spendOf(api.db, campaignId);
}

/** Sets an ad group's max bid and waits for the auction to bid it. */
async function rebid(tree: { adGroup: { id: string }; ad: { id: string } }, maxBidMicros: number) {
  await api.db.adGroup.update({ where: { id: tree.adGroup.id }, data: { maxBidMicros: BigInt(maxBidMicros) } });
  await until(() => h.auction.deps.catalog.ads.some((x) => x.adId === tree.ad.id && x.maxBidMicros === maxBidMicros), 'the new bid in the index');
}

/**
 * The barely relevant ad's bid, from the two scores: `factor` times the bid at
 * which bid x relevance ties the relevant ad's 1 USD (rounded to 10,000
 * micros, so each impression costs whole micros). Chosen from the scores, as
 * the model is refitted; the test then holds the auction to the rule.
 */
const bidAgainst = (relevant: number, barely: number, factor: number) => Math.round((1_000_000 * (relevant / barely) * factor) / 10_000) * 10_000;

describe('ranking by bid x relevance', () => {
  /** The two campaigns in `country` (the starter kit at 1 USD CPM) and their scores; the bakery's bid set to `factor` x the tie. */
  async function pair(country: string, factor: number) {
    const kit = await liveCampaign(country, STARTER_KIT, 1_000_000n);
    const bakery = await liveCampaign(country, BAKERY, 1_000_000n);
    const [relevant, barely] = [scoreOf(kit.ad.id), scoreOf(bakery.ad.id)];
    // The data are as clear as the test needs: both pass the bar, one far more relevant than the other.
    expect(barely).toBeGreaterThanOrEqual(DEFAULT_MIN_RELEVANCE);
    expect(relevant / barely).toBeGreaterThanOrEqual(1.2);
    const bid = bidAgainst(relevant, barely, factor);
    await rebid(bakery, bid);
    return { kit, bakery, relevant, barely, bid };
  }

  test('a very relevant ad at a lower bid beats a barely relevant one at a higher bid, and is charged exactly its own bid', async () => {
    const { kit, bakery, relevant, barely, bid } = await pair('NU', 0.9);
    // By price alone the bakery would win.
    expect(bid).toBeGreaterThan(1_050_000);
    expect(bid * barely).toBeLessThan(1_000_000 * relevant);

    const metricsBefore = await servedRelevanceMetric();
    const served = await ask(h, 'NU');
    expect(served.status).toBe(200);
    expect(served.body.ad).toMatchObject({ headline: 'Sourdough starter kit', price: 1 });
    // auction_served_relevance observed the served ad's score.
    const metricsAfter = await servedRelevanceMetric();
    expect(metricsAfter.count - metricsBefore.count).toBe(1);
    expect(metricsAfter.sum - metricsBefore.sum).toBeCloseTo(relevant, 5);
    const inhouse = (await loggedBids(h, served.body.auction_id)).find((r) => r.bidder_kind === 'inhouse');
    expect(inhouse).toMatchObject({ outcome: 'won', ad_id: kit.ad.id, price_micros: 1_000_000 });
    const row = await auctionRow(h, served.body.auction_id);
    expect(row).toMatchObject({ filled: 1, winner_ad_id: kit.ad.id, price_micros: 1_000_000, no_fill_reason: '' });
    expect(row.winner_relevance).toBeCloseTo(relevant, 3);
    // First price: 1 USD CPM is 1,000 micros an impression, not the runner-up's price nor a rank-adjusted one.
    expect(await impression(served.body.ad, kit.campaign.id)).toMatchObject({ spent: 1000n, impressions: 1n });
    expect(await spendOf(api.db, bakery.campaign.id)).toMatchObject({ spent: 0n, impressions: 0n });
  });

  test('bids far apart: the barely relevant ad wins at twice the tying bid, charged its own bid', async () => {
    const { kit, bakery, barely, bid } = await pair('CK', 2);

    const served = await ask(h, 'CK');
    expect(served.body.ad).toMatchObject({ headline: 'Bakery delivery', price: bid / 1e6 });
    const row = await auctionRow(h, served.body.auction_id);
    expect(row).toMatchObject({ filled: 1, winner_ad_id: bakery.ad.id, price_micros: bid });
    expect(row.winner_relevance).toBeCloseTo(barely, 3);
    expect(row.winner_relevance).toBeGreaterThanOrEqual(DEFAULT_MIN_RELEVANCE);
    expect(row.winner_relevance).toBeLessThanOrEqual(1);
    expect(await impression(served.body.ad, bakery.campaign.id)).toMatchObject({ spent: BigInt(bid / 1000), impressions: 1n });
    expect(await spendOf(api.db, kit.campaign.id)).toMatchObject({ spent: 0n, impressions: 0n });
  });
});

describe("a publisher's minimum relevance", () => {
  let picky: AuctionHarness;
  beforeAll(async () => {
    picky = await startAuction();
  });
  afterAll(() => picky?.close());

  test('--min-relevance 0.9: a loosely relevant ad serves at the default bar, not on its pages (no_bids, winner_relevance -1); a close one serves on both', async () => {
    const updated = await adctl('publisher', 'update', picky.publisherId, '--min-relevance', '0.9');
    expect(updated.code).toBe(0);
    expect(JSON.parse(updated.stdout)).toMatchObject({ publisher_id: picky.publisherId, min_relevance: 0.9 });
    const shown = await adctl('publisher', 'show', picky.publisherId);
    expect(JSON.parse(shown.stdout)).toMatchObject({ min_relevance: 0.9 });
    expect(JSON.parse((await adctl('publisher', 'show', h.publisherId)).stdout)).toMatchObject({ min_relevance: null });
    await until(
      () => [...picky.auction.deps.catalog.publishers.values()].some((p) => p.publicId === picky.publisherId && p.minRelevance === 0.9),
      'the minimum in the auction',
    );

    const country = 'WF';
    const bakery = await liveCampaign(country, BAKERY, 2_000_000n, [h, picky]);
    const loose = scoreOf(bakery.ad.id);
    expect(loose).toBeGreaterThanOrEqual(DEFAULT_MIN_RELEVANCE);
    expect(loose).toBeLessThan(0.85);

    const served = await ask(h, country);
    expect(served.body.ad).toMatchObject({ headline: 'Bakery delivery', price: 2 });
    expect((await auctionRow(h, served.body.auction_id)).winner_relevance).toBeCloseTo(loose, 3);

    const refused = await ask(picky, country);
    expect(refused.status).toBe(200);
    expect(refused.body).toMatchObject({ ad: null, no_fill_reason: 'no_bids' });
    const inhouse = (await loggedBids(picky, refused.body.auction_id)).find((r) => r.bidder_kind === 'inhouse');
    expect(inhouse).toMatchObject({ outcome: 'rejected', reason: 'not_relevant' });
    expect(await auctionRow(picky, refused.body.auction_id)).toMatchObject({ filled: 0, no_fill_reason: 'no_bids', winner_relevance: -1 });

    // An ad about the very conversation clears the publisher's bar.
    const kit = await liveCampaign(country, STARTER_KIT, 1_000_000n, [h, picky]);
    const close = scoreOf(kit.ad.id);
    expect(close).toBeGreaterThanOrEqual(0.92);
    const kept = await ask(picky, country);
    expect(kept.body.ad).toMatchObject({ headline: 'Sourdough starter kit', price: 1 });
    const row = await auctionRow(picky, kept.body.auction_id);
    expect(row.winner_relevance).toBeCloseTo(close, 3);
    expect(row.winner_relevance).toBeGreaterThanOrEqual(0.9);
  });

  test('adctl: --min-relevance default clears it; a value outside 0..1 is refused and nothing changes', async () => {
    const { publisher_id } = JSON.parse((await adctl('publisher', 'create', '--name', `Host ${randomBytes(3).toString('hex')}`)).stdout);
    expect(JSON.parse((await adctl('publisher', 'update', publisher_id, '--min-relevance', '0.75')).stdout)).toMatchObject({ min_relevance: 0.75 });
    // Out of range: the domain's invalid_value (exit 1); not a number: a usage error (exit 2).
    for (const [bad, code] of [
      ['--min-relevance=1.5', 1],
      ['--min-relevance=-0.1', 1],
      ['--min-relevance=high', 2],
    ] as const) {
      const run = await adctl('publisher', 'update', publisher_id, bad);
      expect([bad, run.code, run.stdout]).toEqual([bad, code, '']);
      expect(run.stderr).toMatch(/min[_-]relevance/);
    }
    expect(JSON.parse((await adctl('publisher', 'show', publisher_id)).stdout)).toMatchObject({ min_relevance: 0.75 });
    expect(JSON.parse((await adctl('publisher', 'update', publisher_id, '--min-relevance', 'default')).stdout)).toMatchObject({ min_relevance: null });
  });
});
