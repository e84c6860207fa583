import { randomUUID } from 'node:crypto';
import { assetUrl } from '../domain/assets/ad-images';
import { createAssetStore } from '../lib/asset-store';
import { errorBody, useOrgs } from './support/harness';
import { insertAdGroup, insertCampaign, insertUpload, organizationIdOf, uniquePng } from './support/fixtures';

/** /v1/ad_groups: list, create (with ads), read, update and the status rule of the parent campaign. */
const { h, org, other, api } = useOrgs();
const store = createAssetStore();
const seconds = (date: Date) => Math.floor(date.getTime() / 1000);
const approved = { status: 'paused', reviewStatus: 'approved' };
const card = { type: 'chat_card', title: 'Run faster', body: 'Light shoes' };
const poll = { type: 'poll', title: 'Which distance?', options: ['5k', '10k', 'Marathon'], target_url: 'https://shoes.example/poll' };

describe('POST /v1/ad_groups', () => {
  const body = (campaignId: string, overrides: Record<string, unknown> = {}) => ({
    campaign_id: campaignId,
    name: 'Runners',
    context_hints: ['running', 'marathon'],
    bidding_config: { max_bid_micros: 2_000_000 },
    ads: [{ creative: card }, { name: 'Second', creative: { ...card, title: 'Run longer', cta: 'Shop' } }],
    ...overrides,
  });

  test('creates an active ad group with its ads', async () => {
    const campaign = await insertCampaign(h.db, org);
    const res = await api('POST', '/v1/ad_groups', body(campaign.id));
    expect(res.status).toBe(201);
    const row = await h.db.adGroup.findUniqueOrThrow({ where: { id: res.body.id }, include: { ads: { orderBy: { createdAt: 'asc' } } } });
    expect(res.body).toEqual({
      id: row.id,
      campaign_id: campaign.id,
      name: 'Runners',
      context_hints: ['running', 'marathon'],
      status: 'active',
      bidding_config: { billing_event_type: 'impression', max_bid_micros: 2_000_000 },
      created_at: seconds(row.createdAt),
      updated_at: seconds(row.updatedAt),
    });
    expect(row.creativeType).toBe('chat_card');
    expect(row.ads.map((ad) => [ad.name, ad.title, ad.body, ad.cta, ad.status])).toEqual([
      ['Run faster', 'Run faster', 'Light shoes', null, 'active'],
      ['Second', 'Run longer', 'Light shoes', 'Shop', 'active'],
    ]);
  });

  test('a poll ad group; max bid left unset', async () => {
    const campaign = await insertCampaign(h.db, org);
    const res = await api('POST', '/v1/ad_groups', body(campaign.id, { bidding_config: undefined, ads: [{ creative: poll }] }));
    expect(res.status).toBe(201);
    expect(res.body.bidding_config).toEqual({ billing_event_type: 'impression', max_bid_micros: null });
    const ads = await api('GET', `/v1/ads?ad_group_id=${res.body.id}`);
    expect(ads.body.data).toEqual([
      {
        id: expect.any(String),
        ad_group_id: res.body.id,
        name: 'Which distance?',
        status: 'active',
        review_status: 'in_review',
        creative: { type: 'poll', title: 'Which distance?', options: ['5k', '10k', 'Marathon'], target_url: 'https://shoes.example/poll' },
      },
    ]);
  });

  test("an image by file_id becomes the ad's own asset", async () => {
    const campaign = await insertCampaign(h.db, org);
    const png = await uniquePng();
    const fileId = await insertUpload(h.db, store, await organizationIdOf(h.db, org), png.bytes);
    const res = await api('POST', '/v1/ad_groups', body(campaign.id, { ads: [{ creative: { ...card, file_id: fileId } }] }));
    expect(res.status).toBe(201);
    const ads = await api('GET', `/v1/ads?ad_group_id=${res.body.id}`);
    expect(ads.body.data[0].creative.image_url).toBe(assetUrl({ sha256: png.sha256, ext: 'png' }));
  });

  test('an image error names the ad and nothing is created', async () => {
    const campaign = await insertCampaign(h.db, org);
    const res = await api(
      'POST',
      '/v1/ad_groups',
      body(campaign.id, { ads: [{ creative: card }, { creative: { ...card, file_id: 'uploads/2026/01/0000.png' } }] }),
    );
    expect([res.status, res.body]).toEqual([400, errorBody('invalid_value', 'invalid_request_error', 'ads[1].creative.file_id')]);
    expect(await h.db.adGroup.count({ where: { campaignId: campaign.id } })).toBe(0);
  });

  test.each([
    ['campaign_id missing', { campaign_id: undefined }, 'required', 'campaign_id'],
    ['name missing', { name: undefined }, 'required', 'name'],
    ['name over 255', { name: 'x'.repeat(256) }, 'string_too_long', 'name'],
    ['context_hints missing', { context_hints: undefined }, 'required', 'context_hints'],
    ['context_hints empty', { context_hints: [] }, 'required', 'context_hints'],
    ['context_hints over 50', { context_hints: Array.from({ length: 51 }, (_, i) => `hint ${i}`) }, 'invalid_value', 'context_hints'],
    ['a context hint over 200 characters', { context_hints: ['x'.repeat(201)] }, 'string_too_long', 'context_hints[0]'],
    ['ads missing', { ads: undefined }, 'required', 'ads'],
    ['ads empty', { ads: [] }, 'required', 'ads'],
    ['mixed creative types', { ads: [{ creative: card }, { creative: poll }] }, 'invalid_value', 'ads'],
    ['max bid 0', { bidding_config: { max_bid_micros: 0 } }, 'invalid_value', 'bidding_config.max_bid_micros'],
    ['max bid 100000001', { bidding_config: { max_bid_micros: 100_000_001 } }, 'invalid_value', 'bidding_config.max_bid_micros'],
    ['card title missing', { ads: [{ creative: { type: 'chat_card' } }] }, 'required', 'ads[0].creative.title'],
    ['auto_generate on a poll', { ads: [{ auto_generate: true, creative: poll }] }, 'poll_cannot_be_ai', 'ads[0].auto_generate'],
  ])('%s → 400', async (_name, overrides, code, param) => {
    const campaign = await insertCampaign(h.db, org);
    const res = await api('POST', '/v1/ad_groups', body(campaign.id, overrides));
    expect([res.status, res.body]).toEqual([400, errorBody(code, 'invalid_request_error', param)]);
    expect(await h.db.adGroup.count({ where: { campaignId: campaign.id } })).toBe(0);
  });

  test.each([
    ['unknown', async () => randomUUID()],
    ['malformed', async () => 'campaign-1'],
    ["another organization's", async () => (await insertCampaign(h.db, other)).id],
  ])('%s campaign → 404 not_found on campaign_id', async (_name, campaignId) => {
    const id = await campaignId();
    const res = await api('POST', '/v1/ad_groups', body(id));
    expect([res.status, res.body]).toEqual([404, errorBody('not_found', 'invalid_request_error', 'campaign_id')]);
  });
});

describe('GET /v1/ad_groups and /v1/ad_groups/{id}', () => {
  test("lists one campaign's ad groups, newest first, paged", async () => {
    const campaign = await insertCampaign(h.db, org);
    const elsewhere = await insertCampaign(h.db, org);
    await insertAdGroup(h.db, elsewhere.id);
    const base = Date.now() - 60_000;
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) ids.push((await insertAdGroup(h.db, campaign.id, { createdAt: new Date(base + i * 1000) })).id);

    const all = await api('GET', `/v1/ad_groups?campaign_id=${campaign.id}`);
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ object: 'list', count: 3, first_id: ids[2], last_id: ids[0], has_more: false });
    expect(all.body.data.map((g: { id: string }) => g.id)).toEqual([ids[2], ids[1], ids[0]]);

    const page = await api('GET', `/v1/ad_groups?campaign_id=${campaign.id}&order=asc&limit=1&after=${ids[0]}`);
    expect(page.body).toMatchObject({ count: 1, first_id: ids[1], last_id: ids[1], has_more: true });
    const bad = await api('GET', `/v1/ad_groups?campaign_id=${campaign.id}&limit=501`);
    expect([bad.status, bad.body]).toEqual([400, errorBody('invalid_value', 'invalid_request_error', 'limit')]);
  });

  test('campaign_id is required; unknown, malformed or foreign → 404', async () => {
    const missing = await api('GET', '/v1/ad_groups');
    expect([missing.status, missing.body]).toEqual([400, errorBody('required', 'invalid_request_error', 'campaign_id')]);
    const theirs = await insertCampaign(h.db, other);
    for (const id of [randomUUID(), 'nope', theirs.id]) {
      const res = await api('GET', `/v1/ad_groups?campaign_id=${id}`);
      expect([res.status, res.body]).toEqual([404, errorBody('not_found', 'invalid_request_error', 'campaign_id')]);
    }
  });

  test('get: shape; archived reads back paused; foreign and malformed → 404', async () => {
    const campaign = await insertCampaign(h.db, org);
    const group = await insertAdGroup(h.db, campaign.id, { status: 'archived', maxBidMicros: 5n, contextHints: ['a', 'b'] });
    const res = await api('GET', `/v1/ad_groups/${group.id}`);
    expect([res.status, res.body]).toEqual([
      200,
      {
        id: group.id,
        campaign_id: campaign.id,
        name: group.name,
        context_hints: ['a', 'b'],
        status: 'paused',
        bidding_config: { billing_event_type: 'impression', max_bid_micros: 5 },
        created_at: seconds(group.createdAt),
        updated_at: seconds(group.updatedAt),
      },
    ]);
    const theirs = await insertAdGroup(h.db, (await insertCampaign(h.db, other)).id);
    for (const id of [theirs.id, 'nope', randomUUID()]) {
      const miss = await api('GET', `/v1/ad_groups/${id}`);
      expect([miss.status, miss.body]).toEqual([404, errorBody('not_found', 'invalid_request_error', 'id')]);
    }
  });
});

describe('POST /v1/ad_groups/{id} (update)', () => {
  test('name, context_hints (replaced), max bid; other fields kept', async () => {
    const group = await insertAdGroup(h.db, (await insertCampaign(h.db, org)).id, { contextHints: ['a', 'b'], maxBidMicros: 7n });
    const renamed = await api('POST', `/v1/ad_groups/${group.id}`, { name: 'Renamed' });
    expect(renamed.body).toMatchObject({ name: 'Renamed', context_hints: ['a', 'b'], bidding_config: { max_bid_micros: 7 }, status: 'active' });
    const res = await api('POST', `/v1/ad_groups/${group.id}`, { context_hints: ['c'], bidding_config: { max_bid_micros: 100_000_000 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'Renamed',
      context_hints: ['c'],
      bidding_config: { billing_event_type: 'impression', max_bid_micros: 100_000_000 },
    });
    const unset = await api('POST', `/v1/ad_groups/${group.id}`, { bidding_config: { max_bid_micros: null } });
    expect(unset.body.bidding_config).toEqual({ billing_event_type: 'impression', max_bid_micros: null });
  });

  test('non-status fields may change while the campaign is in review', async () => {
    const group = await insertAdGroup(h.db, (await insertCampaign(h.db, org, { reviewStatus: 'in_review' })).id);
    const res = await api('POST', `/v1/ad_groups/${group.id}`, { name: 'Still editable' });
    expect([res.status, res.body.name]).toEqual([200, 'Still editable']);
  });

  test.each([
    ['max bid 0', { bidding_config: { max_bid_micros: 0 } }, 'invalid_value', 'bidding_config.max_bid_micros'],
    ['max bid 1.5', { bidding_config: { max_bid_micros: 1.5 } }, 'invalid_value', 'bidding_config.max_bid_micros'],
    ['max bid 100000001', { bidding_config: { max_bid_micros: 100_000_001 } }, 'invalid_value', 'bidding_config.max_bid_micros'],
    ['context_hints empty', { context_hints: [] }, 'required', 'context_hints'],
    ['name empty', { name: '' }, 'required', 'name'],
    ['unknown status', { status: 'deleted' }, 'invalid_value', 'status'],
    ['campaign_id', { campaign_id: randomUUID() }, 'invalid_value', 'campaign_id'],
  ])('%s → 400, unchanged', async (_name, body, code, param) => {
    const group = await insertAdGroup(h.db, (await insertCampaign(h.db, org, approved)).id, { maxBidMicros: 7n });
    const res = await api('POST', `/v1/ad_groups/${group.id}`, body);
    expect([res.status, res.body]).toEqual([400, errorBody(code, 'invalid_request_error', param)]);
    expect(await h.db.adGroup.findUniqueOrThrow({ where: { id: group.id } })).toEqual(group);
  });

  test("another organization's ad group → 404", async () => {
    const theirs = await insertAdGroup(h.db, (await insertCampaign(h.db, other)).id);
    const res = await api('POST', `/v1/ad_groups/${theirs.id}`, { name: 'Mine' });
    expect([res.status, res.body]).toEqual([404, errorBody('not_found', 'invalid_request_error', 'id')]);
  });
});

describe('ad group status: actions and updates obey the parent campaign', () => {
  const past = new Date(Date.now() - 86_400_000);
  const future = new Date(Date.now() + 86_400_000);
  const ACTIONS = { activate: 'active', pause: 'paused', archive: 'archived' } as const;

  test.each([
    // [campaign, action, campaign fields, stored status, read-back status]
    ['approved, paused', 'activate', approved, 'active', 'active'],
    ['approved, active', 'pause', { status: 'active', reviewStatus: 'approved' }, 'paused', 'paused'],
    ['approved, ending later', 'archive', { ...approved, endTime: future }, 'archived', 'paused'],
  ] as const)('campaign %s: %s → 200', async (_name, action, campaign, stored, visible) => {
    const group = await insertAdGroup(h.db, (await insertCampaign(h.db, org, campaign)).id, { status: action === 'activate' ? 'paused' : 'active' });
    const res = await api('POST', `/v1/ad_groups/${group.id}/${action}`);
    expect([res.status, res.body.status]).toEqual([200, visible]);
    expect((await h.db.adGroup.findUniqueOrThrow({ where: { id: group.id } })).status).toBe(stored);
  });

  test('an archived ad group can be activated again (no source-state restriction)', async () => {
    const group = await insertAdGroup(h.db, (await insertCampaign(h.db, org, approved)).id, { status: 'archived' });
    const res = await api('POST', `/v1/ad_groups/${group.id}/activate`);
    expect([res.status, res.body.status]).toEqual([200, 'active']);
  });

  test.each(Object.entries(ACTIONS))('update with status for %s', async (_action, status) => {
    const group = await insertAdGroup(h.db, (await insertCampaign(h.db, org, approved)).id, { status: status === 'active' ? 'paused' : 'active' });
    const res = await api('POST', `/v1/ad_groups/${group.id}`, { status, name: 'With status' });
    expect([res.status, res.body.status, res.body.name]).toEqual([200, status === 'active' ? 'active' : 'paused', 'With status']);
    expect((await h.db.adGroup.findUniqueOrThrow({ where: { id: group.id } })).status).toBe(status);
  });

  const locked: [string, object, string][] = [
    ['in review', { reviewStatus: 'in_review' }, 'campaign_pending_status_locked'],
    ['rejected', { reviewStatus: 'rejected' }, 'campaign_terminal'],
    ['archived', { status: 'archived', reviewStatus: 'approved' }, 'campaign_terminal'],
    ['ended', { ...approved, endTime: past }, 'campaign_terminal'],
    ['archived while in review', { status: 'archived', reviewStatus: 'in_review' }, 'campaign_terminal'],
  ];
  const attempts = [
    ...Object.keys(ACTIONS).map((action) => [`POST ${action}`, (id: string) => api('POST', `/v1/ad_groups/${id}/${action}`)] as const),
    ...Object.values(ACTIONS).map((status) => [`update status ${status}`, (id: string) => api('POST', `/v1/ad_groups/${id}`, { status, name: 'x' })] as const),
  ];
  describe.each(locked)('campaign %s', (_name, campaign, code) => {
    test.each(attempts)('%s → 400 ' + code + ', unchanged', async (_attempt, send) => {
      const group = await insertAdGroup(h.db, (await insertCampaign(h.db, org, campaign)).id, { status: 'paused' });
      const res = await send(group.id);
      expect([res.status, res.body]).toEqual([400, errorBody(code)]);
      expect(await h.db.adGroup.findUniqueOrThrow({ where: { id: group.id } })).toEqual(group);
    });
  });

  test("actions on another organization's ad group → 404", async () => {
    const theirs = await insertAdGroup(h.db, (await insertCampaign(h.db, other, approved)).id);
    for (const action of Object.keys(ACTIONS)) {
      const res = await api('POST', `/v1/ad_groups/${theirs.id}/${action}`);
      expect([res.status, res.body]).toEqual([404, errorBody('not_found', 'invalid_request_error', 'id')]);
    }
  });
});
