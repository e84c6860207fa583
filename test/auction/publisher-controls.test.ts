/**
 * The chat host's side of the auction (issue 24), against the real auction
 * service, real reference DSPs on loopback and PostgreSQL: sensitive
 * conversations call no DSP, the publisher's settings (floor, bcat / badv sent
 * and enforced, conversation density) apply without a restart, and every
 * no-fill says why. DSP-only: the in-house bidder's budget gate is closed here.
 */
import { randomBytes } from 'node:crypto';
import { updatePublisherSettings, type PublisherSettingsInput } from '../../domain/publishers/settings';
import { insertTree } from '../support/fixtures';
import { newOrg } from '../support/harness';
import type { ReferenceDsp } from '../../dev/reference-dsp/server';
import { addReferenceDsp, adRequest, contextualRequest, dropReferenceDsp, loggedBids, startAuction, until, type AuctionHarness } from './support';

let h: AuctionHarness;
let openrtb: { dsp: ReferenceDsp; dspId: string };
let native: { dsp: ReferenceDsp; dspId: string };
beforeAll(async () => {
  h = await startAuction({ budget: { mayServe: () => false } });
  openrtb = await addReferenceDsp(h, 'openrtb', { price: 2 });
  native = await addReferenceDsp(h, 'native', { price: 1 });
});
afterAll(async () => {
  for (const d of [openrtb, native]) await dropReferenceDsp(h, d);
  await h.close();
});
beforeEach(async () => {
  await settings({ floorUsd: 0, maxAdsPerConversation: null, minTurnsBetweenAds: null, blockCategories: [], allowCategories: [], blockAdvertisers: [] });
  openrtb.dsp.set({ price: 2, noBidRate: 0, categories: undefined });
  native.dsp.set({ price: 1, noBidRate: 0 });
  openrtb.dsp.received.length = 0;
  native.dsp.received.length = 0;
});

/** Changes the publisher's settings and waits for this auction to have them (the index reloads on the notification). */
async function settings(input: PublisherSettingsInput) {
  const shown = await updatePublisherSettings(h.db, h.publisherId, input);
  await until(() => {
    const p = [...h.auction.deps.catalog.publishers.values()].find((x) => x.publicId === h.publisherId);
    return (
      p !== undefined &&
      p.floorMicros === Math.round(shown.floor_cpm * 1e6) &&
      p.blockedCategories.join() === shown.block_categories.join() &&
      [...p.blockedAdvertisers].join() === shown.block_advertisers.join() &&
      p.maxAdsPerConversation === shown.max_ads_per_conversation &&
      p.minTurnsBetweenAds === (shown.min_turns_between_ads ?? 0) &&
      Object.keys(p.safetyOverrides).join() === shown.allow_categories.join()
    );
  }, 'the publisher settings in the auction');
}

const conversation = (user: string, overrides: Record<string, unknown> = {}) =>
  contextualRequest({
    messages: [
      { role: 'user', content: user },
      { role: 'assistant', content: 'Let me think about that.' },
    ],
    country_code: 'AQ',
    ...overrides,
  });
const bidRequests = () => [...openrtb.dsp.received, ...native.dsp.received].filter((r) => !r.path.includes('render'));

describe('sensitive conversations', () => {
  test('a never category: no DSP is called, the answer says sensitive_conversation with the category', async () => {
    const res = await adRequest(h, conversation('I have decided to kill myself tonight, I already wrote the note'));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ auction_id: expect.any(String), ad: null, no_fill_reason: 'sensitive_conversation', sensitive_categories: ['self_harm'] });
    expect(bidRequests()).toEqual([]);
    expect(await loggedBids(h, res.body.auction_id)).toEqual([]);
  });

  test('a block category: no ad until the publisher allows it; then DSPs get its tier-1 ids in site.cat (cattax 7)', async () => {
    const politics = 'Who should I vote for in the presidential election, the republican or the democrat candidate?';
    const blocked = await adRequest(h, conversation(politics));
    expect(blocked.body).toMatchObject({ ad: null, no_fill_reason: 'sensitive_conversation', sensitive_categories: ['politics'] });
    expect(bidRequests()).toEqual([]);

    await settings({ allowCategories: ['politics'] });
    const allowed = await adRequest(h, conversation(politics, { site: { cat: ['596'] } }));
    expect(allowed.body.ad).not.toBeNull();
    const sent = openrtb.dsp.received.find((r) => r.path === '/openrtb')!.body;
    expect(sent.site).toMatchObject({ cat: ['596', '386'], cattax: 7 });
  });

  test('a never category cannot be allowed', async () => {
    await expect(updatePublisherSettings(h.db, h.publisherId, { allowCategories: ['self_harm'] })).rejects.toMatchObject({
      code: 'invalid_value',
      param: 'allow_categories',
    });
  });

  test('negation and near misses are commercial: the auction runs', async () => {
    for (const text of ["I'm not suicidal, I just want running shoes for my marathon", 'Any killer deals on a camera to shoot photos at the beach?']) {
      const res = await adRequest(h, conversation(text));
      expect(res.body.ad).not.toBeNull();
      expect(res.body).not.toHaveProperty('no_fill_reason');
    }
  });
});

describe('publisher settings', () => {
  test('the floor: bidfloor in the BidRequest, a bid under it is below_floor', async () => {
    await settings({ floorUsd: 5 });
    const res = await adRequest(h, conversation('Which running shoes for a marathon?'));
    expect(res.body).toEqual({ auction_id: expect.any(String), ad: null, no_fill_reason: 'below_floor' });
    expect(openrtb.dsp.received.find((r) => r.path === '/openrtb')!.body.imp[0].bidfloor).toBe(5);
    const dsps = (await loggedBids(h, res.body.auction_id)).filter((b) => b.bidder_kind !== 'inhouse');
    expect(dsps.map((b) => b.reason)).toEqual(['below_floor', 'below_floor']);
  });

  test('bcat and badv: sent (merged with the request own) and enforced on the answers', async () => {
    await settings({ blockCategories: ['IAB7', '596'], blockAdvertisers: ['Reference-Shoes.example'] });
    const res = await adRequest(h, conversation('Which running shoes for a marathon?', { bcat: ['IAB25'], badv: ['other.example'] }));
    const sent = openrtb.dsp.received.find((r) => r.path === '/openrtb')!.body;
    expect(sent.bcat).toEqual(['IAB7', '596', 'IAB25']);
    expect(sent.badv).toEqual(['reference-shoes.example', 'other.example']);
    // The OpenRTB bid declares adomain reference-shoes.example: a non-bid; the native DSP's creative is another brand's.
    const bids = await loggedBids(h, res.body.auction_id);
    expect(bids.find((b) => b.bidder_id === openrtb.dspId)).toMatchObject({ outcome: 'rejected', reason: 'blocked_advertiser', seat_non_bid_code: 300 });
    expect(res.body.ad).toMatchObject({ price: 1 });

    native.dsp.set({ noBidRate: 1 });
    const none = await adRequest(h, conversation('Which running shoes for a marathon?'));
    expect(none.body).toMatchObject({ ad: null, no_fill_reason: 'blocked_advertiser' });
  });

  test('a bid in a blocked category is a non-bid (blocked_category)', async () => {
    await settings({ blockCategories: ['IAB7'] });
    openrtb.dsp.set({ categories: ['IAB1', 'IAB7'] });
    native.dsp.set({ noBidRate: 1 });
    const res = await adRequest(h, conversation('Which running shoes for a marathon?'));
    expect(res.body).toMatchObject({ ad: null, no_fill_reason: 'blocked_category' });
    const bids = await loggedBids(h, res.body.auction_id);
    expect(bids.find((b) => b.bidder_id === openrtb.dspId)).toMatchObject({ reason: 'blocked_category' });
  });

  test('no bids at all: no_bids; a bidder cut by the deadline: timeout', async () => {
    openrtb.dsp.set({ noBidRate: 1 });
    native.dsp.set({ noBidRate: 1 });
    expect((await adRequest(h, conversation('Which running shoes for a marathon?'))).body).toMatchObject({ ad: null, no_fill_reason: 'no_bids' });
    openrtb.dsp.set({ noBidRate: 0, fault: 'slow', slowMs: 400 });
    try {
      expect((await adRequest(h, conversation('Which running shoes for a marathon?', { tmax: 200 }))).body).toMatchObject({
        ad: null,
        no_fill_reason: 'timeout',
      });
    } finally {
      openrtb.dsp.set({ fault: 'none' });
    }
  });
});

describe('conversation density', () => {
  const turn = (chatId: string, userTurns: string[], nAdsBefore = 0) =>
    contextualRequest({
      chatId,
      nAdsBefore,
      country_code: 'AQ',
      messages: userTurns.flatMap((content) => [
        { role: 'user', content },
        { role: 'assistant', content: 'Here is what I found.' },
      ]),
    });

  test('nAdsBefore at the maximum: conversation_limit, no DSP called', async () => {
    await settings({ maxAdsPerConversation: 2 });
    const res = await adRequest(h, turn(`c-${Date.now()}`, ['running shoes?'], 2));
    expect(res.body).toEqual({ auction_id: expect.any(String), ad: null, no_fill_reason: 'conversation_limit' });
    expect(bidRequests()).toEqual([]);
  });

  test('our own count of ads in the chatId reaches the maximum', async () => {
    await settings({ maxAdsPerConversation: 2 });
    const chat = `c-max-${Date.now()}`;
    expect((await adRequest(h, turn(chat, ['shoes?']))).body.ad).not.toBeNull();
    expect((await adRequest(h, turn(chat, ['shoes?', 'trail shoes?']))).body.ad).not.toBeNull();
    // The host says none were shown (nAdsBefore 0), but we served two in this conversation.
    expect((await adRequest(h, turn(chat, ['shoes?', 'trail shoes?', 'socks?']))).body).toMatchObject({ ad: null, no_fill_reason: 'conversation_limit' });
    expect((await adRequest(h, turn(`${chat}-other`, ['socks?']))).body.ad).not.toBeNull();
  });

  test('fewer user turns than the minimum since the last ad', async () => {
    await settings({ minTurnsBetweenAds: 2 });
    const chat = `c-turns-${Date.now()}`;
    expect((await adRequest(h, turn(chat, ['shoes?']))).body.ad).not.toBeNull();
    expect((await adRequest(h, turn(chat, ['shoes?']))).body).toMatchObject({ no_fill_reason: 'conversation_limit' });
    expect((await adRequest(h, turn(chat, ['shoes?', 'trail?']))).body).toMatchObject({ no_fill_reason: 'conversation_limit' });
    expect((await adRequest(h, turn(chat, ['shoes?', 'trail?', 'socks?']))).body.ad).not.toBeNull();
  });
});

describe('our own ads and the publisher blocks', () => {
  let ours: AuctionHarness;
  beforeAll(async () => {
    ours = await startAuction();
  });
  afterAll(async () => {
    await ours.close();
  });

  test('an ad of a blocked advertiser domain (its website or its landing page) is skipped: blocked_advertiser', async () => {
    const topic = `zb${randomBytes(4).toString('hex')}`;
    const org = await newOrg(ours.db);
    await ours.db.adAccount.updateMany({
      where: { organization: { publicId: org.org_public_id } },
      data: { logoUrl: 'https://cdn.example/logo.png', url: 'https://www.blocked-shop.example' },
    });
    const tree = await insertTree(ours.db, org, {
      campaign: { status: 'active', reviewStatus: 'approved', startTime: new Date(Date.now() - 3_600_000), targetCountries: ['TV'] },
      adGroup: { contextHints: [topic], maxBidMicros: 2_000_000n },
      ad: { targetUrl: 'https://landing.example/offer' },
    });
    try {
      await until(() => ours.auction.deps.catalog.ads.some((a) => a.adId === tree.ad.id), 'the ad in the index');
      const request = () => conversation(`I need ${topic}`, { country_code: 'TV' });
      expect((await adRequest(ours, request())).body.ad).toMatchObject({ url: expect.any(String) });
      for (const blocked of ['blocked-shop.example', 'landing.example']) {
        await updatePublisherSettings(ours.db, ours.publisherId, { blockAdvertisers: [blocked] });
        await until(
          () => [...ours.auction.deps.catalog.publishers.values()].some((p) => p.publicId === ours.publisherId && p.blockedAdvertisers.has(blocked)),
          'the block in the auction',
        );
        const res = await adRequest(ours, request());
        expect(res.body).toMatchObject({ ad: null, no_fill_reason: 'blocked_advertiser' });
      }
    } finally {
      await ours.db.campaign.update({ where: { id: tree.campaign.id }, data: { status: 'paused' } });
    }
  });
});
