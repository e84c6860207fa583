/**
 * The in-house bidder: the in-memory index refreshed from PostgreSQL
 * (LISTEN/NOTIFY) after approve / activate / pause through the real api and
 * review workflow; eligibility (time window, country, formats, relevance,
 * openers), bids (cpm, cpc eCPM), headline truncation, polls. The relevance
 * scorer alone: relevance.unit.test.ts.
 * Robust to other tests' campaigns: every ad here targets only Antarctica
 * (AQ) and uses context hints made of a random word no other test uses.
 */
import { randomBytes } from 'node:crypto';
import { readDeliveryToken } from '../../domain/delivery/tracking-token';
import { adctl } from '../support/cli';
import { insertTree } from '../support/fixtures';
import { call, newOrg } from '../support/harness';
import { useApiAndAuction } from '../support/api-and-auction';
import { adRequest, contextualRequest, loggedBids } from './support';
import { until } from '../support/wait';
import { smoothedCtr } from '../../auction/inhouse/eligibility';
import { INDEX_PAGE_SIZE, loadIndexedAds } from '../../auction/inhouse/ad-index';
import { readPollToken } from '../../domain/polls/poll-token';

// Leave nothing live behind for other test files (openers skip relevance).
const { api, h, live: campaignIds } = useApiAndAuction();

const word = () => `zq${randomBytes(4).toString('hex')}`;
const talkAbout = (topic: string, o: Record<string, unknown> = {}) =>
  contextualRequest({
    country_code: 'AQ',
    messages: [
      { role: 'user', content: `Tell me about ${topic} please` },
      { role: 'assistant', content: `Sure, here is what I know about ${topic}.` },
    ],
    ...o,
  });
const indexed = (adId: string) => h.auction.deps.catalog.ads.some((a) => a.adId === adId);
const opener = (o: Record<string, unknown> = {}) => ({
  userId: `u-${randomBytes(4).toString('hex')}`,
  request_type: 'opener',
  country_code: 'AQ',
  device: 'mobile',
  timezone: 'UTC',
  ...o,
});

async function orgWithLogo() {
  const org = await newOrg(api.db);
  await api.db.adAccount.updateMany({
    where: { organization: { publicId: org.org_public_id } },
    data: { logoUrl: 'https://cdn.example/logo.png', url: 'https://shoes.example/' },
  });
  return org;
}

test('index refresh: created (in review) no; approved but paused no; activated yes; paused no again', async () => {
  const topic = word();
  const org = await orgWithLogo();
  const created = await call(api.url, 'POST', '/v1/campaigns', {
    token: org.api_key,
    body: {
      name: `auction refresh ${topic}`,
      start_time: Math.floor(Date.now() / 1000) - 60,
      budget: { lifetime_spend_limit_micros: 5_000_000 },
      targeting: { locations: { include: [{ country_code: 'aq' }] } },
      ad_groups: [
        {
          name: 'g',
          context_hints: [topic],
          bidding_config: { max_bid_micros: 4_000_000 },
          ads: [{ creative: { type: 'chat_card', title: 'Fresh shoes', body: 'Light', cta: 'Shop' } }],
        },
      ],
    },
  });
  expect(created.status).toBe(201);
  const campaignId = created.body.id;
  const ad = await api.db.ad.findFirstOrThrow({ where: { adGroup: { campaignId } } });

  expect((await adRequest(h, talkAbout(topic))).body.ad).toBeNull();

  const approved = await adctl('review', 'approve', campaignId);
  expect(approved.code).toBe(0);
  await until(async () => (await api.db.campaign.findUniqueOrThrow({ where: { id: campaignId } })).reviewStatus === 'approved', 'approval');
  expect((await adRequest(h, talkAbout(topic))).body.ad).toBeNull();

  expect((await call(api.url, 'POST', `/v1/campaigns/${campaignId}/activate`, { token: org.api_key })).status).toBe(200);
  await until(() => indexed(ad.id), 'the activated ad in the index');
  const served = await adRequest(h, talkAbout(topic));
  expect(served.body.ad).toMatchObject({
    format: 'sponsored_message',
    placement: 'text',
    headline: 'Fresh shoes',
    description: 'Light',
    cta_text: 'Shop',
    logo_url: 'https://cdn.example/logo.png',
    domain: 'shoes.example',
    price: 4,
  });
  const rows = await loggedBids(h, served.body.auction_id);
  expect(rows.find((r) => r.bidder_kind === 'inhouse')).toMatchObject({ outcome: 'won', ad_id: ad.id, campaign_id: campaignId, price_micros: 4_000_000 });

  expect((await call(api.url, 'POST', `/v1/campaigns/${campaignId}/pause`, { token: org.api_key })).status).toBe(200);
  await until(() => h.auction.deps.catalog.ads.every((a) => a.adId !== ad.id || a.campaignStatus !== 'active'), 'the pause in the index');
  expect((await adRequest(h, talkAbout(topic))).body.ad).toBeNull();
});

describe('eligibility and bids (fixtures written to PostgreSQL)', () => {
  let topic: string;
  let org: Awaited<ReturnType<typeof orgWithLogo>>;
  const live = { status: 'active', reviewStatus: 'approved', startTime: new Date(Date.now() - 3_600_000), targetCountries: ['AQ'] };
  beforeAll(async () => {
    org = await orgWithLogo();
  });
  beforeEach(() => {
    topic = word();
  });

  async function tree(o: Parameters<typeof insertTree>[2] = {}) {
    const t = await insertTree(api.db, org, {
      campaign: { ...live, ...o.campaign },
      adGroup: { contextHints: [topic], maxBidMicros: 2_000_000n, ...o.adGroup },
      ad: { title: 'Run faster', body: 'Light shoes', cta: 'Shop', ...o.ad },
    });
    campaignIds.push(t.campaign.id);
    await until(() => indexed(t.ad.id), 'the ad in the index');
    return t;
  }

  test('relevance: served when the conversation is about the hint, not otherwise; openers skip relevance', async () => {
    const { ad } = await tree();
    expect((await adRequest(h, talkAbout(`${topic}`))).body.ad).toMatchObject({ headline: 'Run faster' });
    expect((await adRequest(h, talkAbout('the weather on mars'))).body.ad).toBeNull();
    const res = await adRequest(h, opener());
    expect((await loggedBids(h, res.body.auction_id)).some((r) => r.ad_id === ad.id || r.outcome === 'won')).toBe(true);
  });

  test('the index is read in pages: every servable ad exactly once, whatever the page size', async () => {
    const trees = [];
    for (let i = 0; i < 5; i += 1) trees.push(await insertTree(api.db, org, { campaign: live, adGroup: { contextHints: [topic] } }));
    campaignIds.push(...trees.map((t) => t.campaign.id));
    // Scoped to these campaigns: the whole test database's index, read two ads a page, grows with every run.
    const scope = { campaignIds: new Set(trees.map((t) => t.campaign.id)), adAccountIds: new Set<string>() };
    for (const pageSize of [2, 7, INDEX_PAGE_SIZE]) {
      const loaded = (await loadIndexedAds(api.db, pageSize, scope)).map((ad) => ad.adId);
      expect(new Set(loaded).size).toBe(loaded.length);
      expect(loaded.sort()).toEqual(trees.map((t) => t.ad.id).sort());
    }
  });

  test('country targeting: another country is not served; an untargeted campaign serves everywhere', async () => {
    await tree();
    expect((await adRequest(h, talkAbout(`${topic}`, { country_code: 'BV' }))).body.ad).toBeNull();
    const other = word();
    await tree({ campaign: { targetCountries: [] }, adGroup: { contextHints: [other] } });
    expect((await adRequest(h, talkAbout(other, { country_code: 'BV' }))).body.ad).toMatchObject({ headline: 'Run faster' });
  });

  test('time window: not before start_time, not after end_time; in review or rejected never', async () => {
    const ended = await insertTree(api.db, org, {
      campaign: { ...live, startTime: new Date(Date.now() - 7_200_000), endTime: new Date(Date.now() - 1000) },
      adGroup: { contextHints: [topic] },
    });
    const inReview = await insertTree(api.db, org, { campaign: { ...live, reviewStatus: 'in_review' }, adGroup: { contextHints: [topic] } });
    const rejected = await insertTree(api.db, org, { campaign: { ...live, reviewStatus: 'rejected' }, adGroup: { contextHints: [topic] } });
    // Inserted last: once it is in the index, the index has seen the three above.
    await tree({ campaign: { startTime: new Date(Date.now() + 3_600_000) } });
    expect((await adRequest(h, talkAbout(`${topic}`))).body.ad).toBeNull();
    for (const t of [ended, inReview, rejected]) expect(indexed(t.ad.id)).toBe(false);
  });

  test('ad group or ad paused: not served', async () => {
    const a = await tree();
    await api.db.ad.update({ where: { id: a.ad.id }, data: { status: 'paused' } });
    await until(() => h.auction.deps.catalog.ads.some((x) => x.adId === a.ad.id && x.adStatus === 'paused'), 'the paused ad');
    expect((await adRequest(h, talkAbout(`${topic}`))).body.ad).toBeNull();
    await api.db.ad.update({ where: { id: a.ad.id }, data: { status: 'active' } });
    await api.db.adGroup.update({ where: { id: a.adGroup.id }, data: { status: 'paused' } });
    await until(() => h.auction.deps.catalog.ads.some((x) => x.adId === a.ad.id && x.adGroupStatus === 'paused'), 'the paused group');
    expect((await adRequest(h, talkAbout(`${topic}`))).body.ad).toBeNull();
  });

  test('formats: text placement needs the account logo; poll only when offered, with signed vote/results URLs', async () => {
    const poll = await tree({
      adGroup: { creativeType: 'poll' },
      ad: { creativeType: 'poll', title: 'Which distance?', options: ['5k', '10k', 'Marathon'], targetUrl: 'https://shoes.example/poll' },
    });
    expect((await adRequest(h, talkAbout(`${topic}`))).body.ad).toBeNull();
    const res = await adRequest(h, talkAbout(`${topic}`, { ad_formats: ['poll'] }));
    expect(res.body.ad).toMatchObject({
      format: 'poll',
      question: 'Which distance?',
      options: [
        { id: 'opt_1', text: '5k' },
        { id: 'opt_2', text: '10k' },
        { id: 'opt_3', text: 'Marathon' },
      ],
      vote_url: expect.stringContaining('/api/v1/tracking/sponsored-polls/vote?token='),
      results_url: expect.stringContaining('/api/v1/tracking/sponsored-polls/results?token='),
      cta_url: expect.stringContaining('/api/v1/tracking/click?token='),
      price: 2,
    });
    // The poll tokens are the poll-tracking module's (domain/polls/poll-token.ts).
    const vote = readPollToken(new URL(res.body.ad.vote_url).searchParams.get('token'), 'vote');
    expect(vote).toEqual({ kind: 'vote', adId: poll.ad.id, auctionId: res.body.auction_id });
    expect(readPollToken(new URL(res.body.ad.results_url).searchParams.get('token'), 'results')).toEqual({
      kind: 'results',
      adId: poll.ad.id,
      auctionId: res.body.auction_id,
    });
    // End to end: the delivered URLs work on the api's poll tracking.
    const onApi = (url: string) => {
      const u = new URL(url);
      return `${u.pathname}${u.search}`;
    };
    const voted = await call(api.url, 'POST', onApi(res.body.ad.vote_url), { body: { option_id: 'opt_2' } });
    expect(voted.status).toBe(200);
    expect(voted.body.data).toMatchObject({ question: 'Which distance?', total_votes: 1 });
    expect((await call(api.url, 'GET', onApi(res.body.ad.results_url))).body.data.options.map((o: { votes: number }) => o.votes)).toEqual([0, 1, 0]);
    const click = readDeliveryToken(new URL(res.body.ad.cta_url).searchParams.get('token'), 'click');
    expect(click?.claims).toMatchObject({ kind: 'click', url: 'https://shoes.example/poll' });
  });

  test("image placement with the ad's image; images off falls back to text with the logo", async () => {
    const asset = await api.db.asset.create({
      data: {
        organizationId: (await api.db.organization.findUniqueOrThrow({ where: { publicId: org.org_public_id } })).id,
        sha256: 'a'.repeat(64),
        ext: 'png',
        mime: 'image/png',
        width: 600,
        height: 600,
        sizeBytes: 10,
      },
    });
    await tree({ ad: { assetId: asset.id } });
    const withImage = await adRequest(h, talkAbout(`${topic}`));
    expect(withImage.body.ad).toMatchObject({ placement: 'image', image_url: expect.stringMatching(/\/assets\/a{64}\.png$/) });
    const off = await adRequest(h, talkAbout(`${topic}`, { config: { image_enabled: false } }));
    expect(off.body.ad).toMatchObject({ placement: 'text', logo_url: 'https://cdn.example/logo.png' });
    expect(off.body.ad).not.toHaveProperty('image_url');
  });

  test('an edited creative keeps serving its approved version until a reviewer approves the edit', async () => {
    const t = await tree({ ad: { title: 'Run faster', body: 'Light shoes' } });
    const edit = await call(api.url, 'POST', `/v1/ads/${t.ad.id}`, {
      token: org.api_key,
      body: { creative: { type: 'chat_card', title: 'Bait and switch', body: 'Unreviewed copy' } },
    });
    expect(edit.status).toBe(200);
    // A reload after the edit: a later change (another ad) has reached the index.
    const later = await tree({ adGroup: { contextHints: [word()] } });
    expect(indexed(later.ad.id)).toBe(true);
    const served = await adRequest(h, talkAbout(topic));
    expect(served.body.ad).toMatchObject({ headline: 'Run faster', description: 'Light shoes' });
  });

  test('headline truncated to max_headline_chars', async () => {
    await tree({ ad: { title: 'An extraordinarily long headline about lightweight running shoes for everyone' } });
    const res = await adRequest(h, talkAbout(`${topic}`, { config: { max_headline_chars: 30 } }));
    expect([...res.body.ad.headline].length).toBeLessThanOrEqual(30);
    expect(res.body.ad.headline.endsWith('…')).toBe(true);
  });

  test('bids: cpm = max_bid_micros; cpc = eCPM from the smoothed CTR; defaults when unset; highest wins', async () => {
    await tree({ campaign: { pricingModel: 'cpc' }, adGroup: { maxBidMicros: 100_000_000n } });
    let res = await adRequest(h, talkAbout(`${topic}`));
    // 100 USD per click x 1% prior CTR x 1000 = 1000 USD CPM
    expect(res.body.ad.price).toBe(Math.round(100_000_000 * smoothedCtr(0, 0) * 1000) / 1e6);
    topic = word();
    await tree({ adGroup: { maxBidMicros: null } });
    res = await adRequest(h, talkAbout(`${topic}`));
    expect(res.body.ad.price).toBe(1);
  });
});
