/**
 * GET /v1/campaigns/{campaign_id}/delivery: for each issue code, the situation
 * set up in the real stores (and, for the traffic codes, real auctions through
 * the in-house bidder) and read back through the API.
 */
import { randomBytes } from 'node:crypto';
import { adctl } from '../support/cli';
import { insertAd, insertTree } from '../support/fixtures';
import { call, newOrg } from '../support/harness';
import { useApiAndAuction } from '../support/api-and-auction';
import { adRequest, contextualRequest, loggedBids, until } from '../auction/support';
import { readConversation } from '../../auction/inhouse/relevance';
import { DEFAULT_MIN_RELEVANCE, relevanceOf } from '../../domain/relevance/score';

/** `live`: campaigns this file made servable, paused again afterwards. */
const { api, h, live } = useApiAndAuction();

const HOUR = 3_600_000;
const word = () => `zd${randomBytes(4).toString('hex')}`;
const serving = { status: 'active', reviewStatus: 'approved', startTime: new Date(Date.now() - HOUR) } as const;

async function delivery(token: string, campaignId: string) {
  const res = await call(api.url, 'GET', `/v1/campaigns/${campaignId}/delivery`, { token });
  expect(res.status).toBe(200);
  return res.body;
}
const codes = (body: { issues: { code: string }[] }) => body.issues.map((i) => i.code);
const issueOf = (body: { issues: { code: string; message?: string; details?: Record<string, unknown> }[] }, code: string) =>
  body.issues.find((i) => i.code === code);

describe("the campaign's own state", () => {
  let org: Awaited<ReturnType<typeof newOrg>>;
  beforeAll(async () => {
    org = await newOrg(api.db);
    await api.db.adAccount.updateMany({ where: { organization: { publicId: org.org_public_id } }, data: { logoUrl: 'https://cdn.example/logo.png' } });
  });

  test.each([
    ['not_approved', { reviewStatus: 'in_review' }, 'not_delivering', 'blocking'],
    ['rejected', { reviewStatus: 'rejected', reviewReason: 'Misleading claims' }, 'not_delivering', 'blocking'],
    ['campaign_paused', { ...serving, status: 'paused' }, 'not_delivering', 'blocking'],
    ['archived', { ...serving, status: 'archived' }, 'not_delivering', 'blocking'],
    ['blocked', { ...serving, lifecycleState: 'blocked', lifecycleReason: 'Counterfeit goods' }, 'not_delivering', 'blocking'],
    ['scheduled', { ...serving, startTime: new Date(Date.now() + 2 * 86_400_000) }, 'scheduled', 'info'],
    ['ended', { ...serving, startTime: new Date(Date.now() - 3 * HOUR), endTime: new Date(Date.now() - HOUR) }, 'completed', 'info'],
    ['budget_exhausted', { ...serving, lifecycleState: 'completed', lifecycleReason: 'budget_exhausted' }, 'completed', 'info'],
  ] as const)('%s', async (code, campaign, status, severity) => {
    const tree = await insertTree(api.db, org, { campaign });
    const body = await delivery(org.api_key, tree.campaign.id);
    expect(body.delivery_status).toBe(status);
    expect(body.ad_groups[0].ads[0].delivery_status).toBe(status);
    expect(issueOf(body, code)).toMatchObject({ severity, entity: { type: 'campaign', id: tree.campaign.id }, message: expect.any(String) });
  });

  test("details: the reviewer's reason, the start time", async () => {
    const rejected = await insertTree(api.db, org, { campaign: { reviewStatus: 'rejected', reviewReason: 'Misleading claims' } });
    expect(issueOf(await delivery(org.api_key, rejected.campaign.id), 'rejected')).toMatchObject({
      message: expect.stringContaining('Misleading claims'),
      details: { reason: 'Misleading claims' },
    });
    const start = new Date(Math.floor(Date.now() / 1000 + 86_400) * 1000);
    const later = await insertTree(api.db, org, { campaign: { ...serving, startTime: start } });
    expect(issueOf(await delivery(org.api_key, later.campaign.id), 'scheduled')).toMatchObject({
      details: { start_time: start.getTime() / 1000, starts_at: start.toISOString() },
    });
  });

  test('a spend that reached the limit reads budget_exhausted before the lifecycle catches up', async () => {
    const tree = await insertTree(api.db, org, { campaign: { ...serving, lifetimeSpendLimitMicros: 1_000_000n } });
    await api.db.campaignSpend.create({ data: { campaignId: tree.campaign.id, spentMicros: 1_000_000n } });
    const body = await delivery(org.api_key, tree.campaign.id);
    expect(body.delivery_status).toBe('completed');
    expect(issueOf(body, 'budget_exhausted')).toMatchObject({ details: { spent_micros: 1_000_000, lifetime_spend_limit_micros: 1_000_000 } });
  });

  test('ad_group_paused and ad_paused, on their own entities; another ad keeps the campaign delivering', async () => {
    const tree = await insertTree(api.db, org, { campaign: serving, adGroup: { status: 'paused' } });
    let body = await delivery(org.api_key, tree.campaign.id);
    expect(body.delivery_status).toBe('not_delivering');
    expect(issueOf(body, 'ad_group_paused')).toMatchObject({ severity: 'blocking', entity: { type: 'ad_group', id: tree.adGroup.id } });

    const other = await insertTree(api.db, org, { campaign: serving, ad: { status: 'paused' } });
    const second = await insertAd(api.db, other.adGroup.id, { approvedCreative: other.ad.approvedCreative ?? undefined, creativeReviewStatus: 'approved' });
    body = await delivery(org.api_key, other.campaign.id);
    expect(issueOf(body, 'ad_paused')).toMatchObject({ severity: 'blocking', entity: { type: 'ad', id: other.ad.id } });
    const ads = body.ad_groups[0].ads;
    expect(ads.find((a: { ad_id: string }) => a.ad_id === other.ad.id).delivery_status).toBe('not_delivering');
    expect(ads.find((a: { ad_id: string }) => a.ad_id === second.id).delivery_status).toBe('delivering');
    expect(body.delivery_status).toBe('delivering');
  });

  test("an unknown, malformed or another organization's campaign is 404 not_found, like the campaign itself", async () => {
    const tree = await insertTree(api.db, org, { campaign: serving });
    const stranger = await newOrg(api.db);
    for (const [token, id] of [
      [stranger.api_key, tree.campaign.id],
      [org.api_key, 'not-a-uuid'],
      [org.api_key, '00000000-0000-4000-8000-000000000000'],
    ]) {
      const res = await call(api.url, 'GET', `/v1/campaigns/${id}/delivery`, { token });
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ code: 'not_found', type: 'invalid_request_error', param: 'campaign_id' });
    }
  });
});

describe('the creative and the account', () => {
  test('no_landing_url: an account without website and a card without target URL', async () => {
    const org = await newOrg(api.db, { domain: undefined });
    const tree = await insertTree(api.db, org, { campaign: serving });
    const body = await delivery(org.api_key, tree.campaign.id);
    expect(issueOf(body, 'no_landing_url')).toMatchObject({
      severity: 'blocking',
      entity: { type: 'ad', id: tree.ad.id },
      action: expect.stringContaining('website'),
    });
    expect(body.delivery_status).toBe('not_delivering');
    // A website set on the account is all it takes.
    await api.db.adAccount.updateMany({
      where: { organization: { publicId: org.org_public_id } },
      data: { url: 'https://shop.example/', logoUrl: 'https://cdn.example/l.png' },
    });
    expect(codes(await delivery(org.api_key, tree.campaign.id))).not.toContain('no_landing_url');
  });

  test('no_image_or_logo: blocking without either, limiting with an image but no logo', async () => {
    const org = await newOrg(api.db);
    const bare = await insertTree(api.db, org, { campaign: serving });
    expect(issueOf(await delivery(org.api_key, bare.campaign.id), 'no_image_or_logo')).toMatchObject({ severity: 'blocking', details: { when: 'always' } });

    const withImage = await insertTree(api.db, org, { campaign: serving });
    const snapshot = {
      ...(withImage.ad.approvedCreative as object),
      image: { asset_id: 'a', sha256: 'f'.repeat(64), ext: 'png', mime: 'image/png', width: 600, height: 314 },
    };
    await api.db.ad.update({ where: { id: withImage.ad.id }, data: { approvedCreative: snapshot } });
    const body = await delivery(org.api_key, withImage.campaign.id);
    expect(issueOf(body, 'no_image_or_logo')).toMatchObject({ severity: 'limiting', details: { when: 'images_off' } });
    expect(body.delivery_status).toBe('limited');
  });

  test('creative_in_review: an edit waits, the approved version serves (info)', async () => {
    const org = await newOrg(api.db);
    await api.db.adAccount.updateMany({ where: { organization: { publicId: org.org_public_id } }, data: { logoUrl: 'https://cdn.example/logo.png' } });
    const tree = await insertTree(api.db, org, { campaign: serving });
    await api.db.ad.update({ where: { id: tree.ad.id }, data: { title: 'An edit', creativeRevision: 2, creativeReviewStatus: 'pending' } });
    const body = await delivery(org.api_key, tree.campaign.id);
    expect(issueOf(body, 'creative_in_review')).toMatchObject({ severity: 'info', entity: { type: 'ad', id: tree.ad.id } });
    expect(body.delivery_status).toBe('delivering');
  });
});

describe('from the last hour of auctions', () => {
  /** A servable campaign the auction has indexed, targeting `country`, with context hints `topic`. */
  async function liveCampaign(country: string, topic: string, maxBidMicros = 2_000_000n) {
    const org = await newOrg(api.db);
    await api.db.adAccount.updateMany({ where: { organization: { publicId: org.org_public_id } }, data: { logoUrl: 'https://cdn.example/logo.png' } });
    const tree = await insertTree(api.db, org, { campaign: { ...serving, targetCountries: [country] }, adGroup: { contextHints: [topic], maxBidMicros } });
    live.push(tree.campaign.id);
    await until(() => h.auction.deps.catalog.ads.some((a) => a.adId === tree.ad.id), 'the ad in the index');
    return { org, tree };
  }
  const about = (topic: string, country: string) =>
    contextualRequest({
      country_code: country,
      messages: [
        { role: 'user', content: `Tell me about ${topic}` },
        { role: 'assistant', content: `Here is ${topic}.` },
      ],
    });

  test('no_targeted_traffic: every request came from elsewhere; the skips are counted per reason', async () => {
    const topic = word();
    const { org, tree } = await liveCampaign('NR', topic);
    for (let i = 0; i < 3; i += 1) expect((await adRequest(h, about(topic, 'US'))).status).toBe(200);
    await h.auction.flushInhouseStats();
    const body = await delivery(org.api_key, tree.campaign.id);
    expect(issueOf(body, 'no_targeted_traffic')).toMatchObject({ severity: 'limiting', entity: { type: 'campaign' }, details: { countries: ['NR'] } });
    expect(body.traffic.skipped.not_targeted).toBeGreaterThanOrEqual(3);
    expect(body.delivery_status).toBe('limited');
  });

  test('not_relevant: requests from the targeted country, none about the hints; the in-house no-bid says so in the log', async () => {
    const { org, tree } = await liveCampaign('NR', word());
    let auctionId = '';
    for (let i = 0; i < 3; i += 1) auctionId = (await adRequest(h, about(word(), 'NR'))).body.auction_id;
    await h.auction.flushInhouseStats();
    const body = await delivery(org.api_key, tree.campaign.id);
    expect(issueOf(body, 'not_relevant')).toMatchObject({ severity: 'limiting', entity: { type: 'ad_group', id: tree.adGroup.id } });
    expect(body.ad_groups[0].traffic.skipped.not_relevant).toBeGreaterThanOrEqual(3);
    const inhouse = (await loggedBids(h, auctionId)).find((r) => r.bidder_kind === 'inhouse');
    expect(inhouse).toMatchObject({ outcome: 'rejected', reason: 'not_relevant', seat_non_bid_code: 0 });
  });

  test('not_relevant says how close the ad group came: its highest score over the window against the bar', async () => {
    // Java the coffee, asked about by programmers: every request finds the group by its hint's word (retrieval), none is about it.
    const org = await newOrg(api.db);
    await api.db.adAccount.updateMany({ where: { organization: { publicId: org.org_public_id } }, data: { logoUrl: 'https://cdn.example/logo.png' } });
    const tree = await insertTree(api.db, org, {
      campaign: { ...serving, targetCountries: ['TK'] },
      adGroup: { contextHints: ['java', 'coffee beans'] },
      ad: { title: 'Single-origin Java coffee', body: 'Freshly roasted beans' },
    });
    live.push(tree.campaign.id);
    await until(() => h.auction.deps.catalog.ads.some((a) => a.adId === tree.ad.id), 'the ad in the index');
    const conversations = [
      ['How do I fix a NullPointerException in my java code?', 'Check which object is null before you call its method, or use Optional.'],
      ['My java program throws OutOfMemoryError on large files', 'Stream the file line by line instead of reading it whole, or raise the heap with -Xmx.'],
      [
        'What is the difference between an interface and an abstract class in java?',
        'A class can implement many interfaces but extend only one abstract class.',
      ],
    ].map(([user, assistant]) => [
      { role: 'user', content: user },
      { role: 'assistant', content: assistant },
    ]);
    for (const messages of conversations) expect((await adRequest(h, contextualRequest({ country_code: 'TK', messages }))).body.ad).toBeNull();
    // The scores the auction computed, through the same model and the group's indexed profile.
    const profile = h.auction.deps.catalog.ads.find((a) => a.adId === tree.ad.id)!.relevance;
    const closest = Math.round(Math.max(...conversations.map((m) => relevanceOf(readConversation(m), profile))) * 1000) / 1000;
    expect(closest).toBeGreaterThan(0);
    expect(closest).toBeLessThan(DEFAULT_MIN_RELEVANCE);
    await h.auction.flushInhouseStats();
    const body = await delivery(org.api_key, tree.campaign.id);
    expect(issueOf(body, 'not_relevant')).toEqual({
      code: 'not_relevant',
      severity: 'limiting',
      entity: { type: 'ad_group', id: tree.adGroup.id },
      details: { requests: 3, closest_relevance: closest, min_relevance: 0.5 },
      message: `None of the 3 ad requests of the last hour from the targeted countries was relevant enough to the ad group's context hints and ad: the closest it came was ${closest.toFixed(2)} against a bar of 0.50 (0 unrelated, 1 exactly on topic).`,
      action: expect.stringContaining('/v1/ad_groups/{id}/test_relevance'),
    });
    const printed = await adctl('campaign', 'delivery', tree.campaign.id);
    expect(printed.code).toBe(0);
    expect(issueOf(JSON.parse(printed.stdout), 'not_relevant')).toMatchObject({ details: { closest_relevance: closest, min_relevance: 0.5 } });
  });

  test("outbid by one competitor: eligible, lost to a higher bid, the competitor's price withheld", async () => {
    const topic = word();
    const low = await liveCampaign('NR', topic, 1_000_000n);
    const high = await liveCampaign('NR', topic, 3_000_000n);
    for (let i = 0; i < 4; i += 1) {
      const served = await adRequest(h, about(topic, 'NR'));
      expect(served.body.ad).toMatchObject({ price: 3 });
    }
    await h.auction.flushInhouseStats();
    const body = await delivery(low.org.api_key, low.tree.campaign.id);
    const outbid = issueOf(body, 'outbid')!;
    expect(outbid).toMatchObject({
      severity: 'limiting',
      entity: { type: 'ad_group', id: low.tree.adGroup.id },
      details: { eligible: 4, won: 0, outbid: 4, max_bid_micros: 1_000_000, winning_price_withheld: 'too_few_advertisers' },
    });
    // A sole competitor's price would be its exact max bid.
    expect(outbid.details).not.toHaveProperty('median_winning_price_micros');
    expect(outbid.message).not.toContain('3.00');
    expect(outbid.message).toContain('not shown');
    const winner = await delivery(high.org.api_key, high.tree.campaign.id);
    expect(winner.traffic).toMatchObject({ eligible: 4, won: 4, outbid: 0 });
    expect(codes(winner)).not.toContain('outbid');
    expect(winner.delivery_status).toBe('delivering');
  });

  test('outbid by three advertisers in turn: the median winning price is shown, in the API and in adctl', async () => {
    const topic = word();
    const low = await liveCampaign('NR', topic, 1_000_000n);
    // Each competitor wins two auctions alone, then leaves the index: three advertisers, none above half of the prices.
    for (const bid of [3_000_000n, 4_000_000n, 5_000_000n]) {
      const rival = await liveCampaign('NR', topic, bid);
      for (let i = 0; i < 2; i += 1) expect((await adRequest(h, about(topic, 'NR'))).body.ad).toMatchObject({ price: Number(bid) / 1e6 });
      await api.db.campaign.update({ where: { id: rival.tree.campaign.id }, data: { status: 'paused' } });
      await until(() => !h.auction.deps.catalog.ads.some((a) => a.adId === rival.tree.ad.id), 'the rival out of the index');
    }
    await h.auction.flushInhouseStats();
    const expected = { eligible: 6, won: 0, outbid: 6, max_bid_micros: 1_000_000, median_winning_price_micros: 4_000_000 };
    const outbid = issueOf(await delivery(low.org.api_key, low.tree.campaign.id), 'outbid')!;
    expect(outbid).toMatchObject({ details: expected });
    expect(outbid.details).not.toHaveProperty('winning_price_withheld');
    const printed = await adctl('campaign', 'delivery', low.tree.campaign.id);
    expect(printed.code).toBe(0);
    expect(issueOf(JSON.parse(printed.stdout), 'outbid')).toMatchObject({ details: expected });
  });

  test('adctl campaign delivery prints the same diagnosis; dsp report names the in-house reasons', async () => {
    const { tree } = await liveCampaign('NR', word());
    await adRequest(h, about(word(), 'NR'));
    await h.auction.flushInhouseStats();
    const printed = await adctl('campaign', 'delivery', tree.campaign.id);
    const printedJson = JSON.parse(printed.stdout);
    expect(printed.code).toBe(0);
    expect(printedJson).toMatchObject({
      campaign_id: tree.campaign.id,
      delivery_status: 'limited',
      issues: [expect.objectContaining({ code: 'not_relevant' })],
    });
    const report = await adctl('dsp', 'report', '--dsp', 'inhouse');
    expect(JSON.parse(report.stdout).dsps[0].non_bids).toEqual(expect.arrayContaining([expect.objectContaining({ reason: 'not_relevant', code: 0 })]));
    expect((await adctl('campaign', 'delivery', '00000000-0000-4000-8000-000000000000')).code).not.toBe(0);
  });
});
