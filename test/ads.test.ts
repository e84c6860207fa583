import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { assetKey, assetUrl } from '../domain/assets/ad-images';
import { templateGenerator } from '../domain/creatives/generator';
import { createAssetStore } from '../lib/asset-store';
import { apiClient, errorBody, newOrg, useHarness } from './support/harness';
import { insertAd, insertAdGroup, insertCampaign, insertTree, insertUpload, organizationIdOf, uniquePng } from './support/fixtures';

/** /v1/ads: list, create (images, auto_generate), read, update (creative and image swap) and status. */
const h = useHarness();
let org: Awaited<ReturnType<typeof newOrg>>;
let other: Awaited<ReturnType<typeof newOrg>>;
let orgId: string;
const store = createAssetStore();
let imageServer: http.Server;
let imageBase: string;
const served = new Map<string, Buffer>();

beforeAll(async () => {
  [org, other] = await Promise.all([newOrg(h.db), newOrg(h.db)]);
  orgId = await organizationIdOf(h.db, org);
  imageServer = http.createServer((req, res) => {
    const bytes = served.get(req.url ?? '');
    res.writeHead(bytes ? 200 : 404, { 'content-type': 'image/png' }).end(bytes);
  });
  await new Promise<void>((resolve) => imageServer.listen(0, '127.0.0.1', resolve));
  imageBase = `http://127.0.0.1:${(imageServer.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => imageServer.close(r));
});

const api = apiClient(
  () => h,
  () => org,
);
const approved = { status: 'active', reviewStatus: 'approved' };
const card = { type: 'chat_card', title: 'Run faster', body: 'Light shoes' };
const poll = { type: 'poll', title: 'Which distance?', options: ['5k', '10k'], target_url: 'https://shoes.example/poll' };
const pngUrl = (sha256: string) => assetUrl({ sha256, ext: 'png' });

async function cardGroup(campaign: object = approved) {
  return insertAdGroup(h.db, (await insertCampaign(h.db, org, campaign)).id, { name: 'Runners', contextHints: ['running', 'marathon'] });
}
async function uploaded() {
  const png = await uniquePng();
  return { ...png, fileId: await insertUpload(h.db, store, orgId, png.bytes) };
}

describe('POST /v1/ads', () => {
  test('a chat card with an uploaded image: 201, active, named after its title', async () => {
    const group = await cardGroup();
    const image = await uploaded();
    const res = await api('POST', '/v1/ads', { ad_group_id: group.id, creative: { ...card, cta: 'Shop now', file_id: image.fileId } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      ad_group_id: group.id,
      name: 'Run faster',
      status: 'active',
      review_status: 'approved',
      creative: { type: 'chat_card', title: 'Run faster', body: 'Light shoes', cta: 'Shop now', image_url: pngUrl(image.sha256) },
    });
    const row = await h.db.ad.findUniqueOrThrow({ where: { id: res.body.id }, include: { asset: true } });
    expect(row.asset).toMatchObject({ organizationId: orgId, sha256: image.sha256, ext: 'png', mime: 'image/png' });
    expect(await store.exists(assetKey({ sha256: image.sha256, ext: 'png' }))).toBe(true);
  });

  test('without image, cta or body; with a name', async () => {
    const group = await cardGroup();
    const res = await api('POST', '/v1/ads', { ad_group_id: group.id, name: 'Plain', creative: { type: 'chat_card', title: 'Hello' } });
    expect([res.status, res.body.name, res.body.creative]).toEqual([201, 'Plain', { type: 'chat_card', title: 'Hello', body: '', image_url: null }]);
  });

  test('an image by image_url is downloaded and stored', async () => {
    const group = await cardGroup();
    const png = await uniquePng();
    served.set(`/${png.sha256}.png`, png.bytes);
    const res = await api('POST', '/v1/ads', { ad_group_id: group.id, creative: { ...card, image_url: `${imageBase}/${png.sha256}.png` } });
    expect([res.status, res.body.creative.image_url]).toEqual([201, pngUrl(png.sha256)]);
  });

  test('a poll in a poll ad group', async () => {
    const group = await insertAdGroup(h.db, (await insertCampaign(h.db, org)).id, { creativeType: 'poll' });
    const res = await api('POST', '/v1/ads', { ad_group_id: group.id, creative: poll });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      ad_group_id: group.id,
      name: 'Which distance?',
      status: 'active',
      review_status: 'in_review',
      creative: { type: 'poll', title: 'Which distance?', options: ['5k', '10k'], target_url: 'https://shoes.example/poll' },
    });
  });

  test('auto_generate writes the missing title and body from the ad group and account', async () => {
    const writer = await newOrg(h.db);
    await h.db.adAccount.update({ where: { id: writer.ad_account_id }, data: { name: 'Acme Shoes', url: 'https://acme.example' } });
    const group = await insertAdGroup(h.db, (await insertCampaign(h.db, writer)).id, { name: 'Runners', contextHints: ['trail running', 'hiking'] });
    const copy = await templateGenerator.generate({
      adGroupName: 'Runners',
      contextHints: ['trail running', 'hiking'],
      accountName: 'Acme Shoes',
      accountUrl: 'https://acme.example',
    });
    expect(copy.title.length).toBeGreaterThan(0);

    const generated = await api('POST', '/v1/ads', { ad_group_id: group.id, auto_generate: true, creative: { type: 'chat_card', cta: 'Shop' } }, writer);
    expect(generated.status).toBe(201);
    expect(generated.body).toMatchObject({
      name: copy.title,
      creative: { type: 'chat_card', title: copy.title, body: copy.body, cta: 'Shop', image_url: null },
    });

    const ownTitle = await api('POST', '/v1/ads', { ad_group_id: group.id, auto_generate: true, creative: { type: 'chat_card', title: 'Mine' } }, writer);
    expect(ownTitle.body).toMatchObject({ name: 'Mine', creative: { title: 'Mine', body: copy.body } });
  });

  test.each([
    ['a poll into a chat_card group', 'chat_card', poll],
    ['a chat card into a poll group', 'poll', card],
  ])('%s → 400 invalid_value on creative.type', async (_name, groupType, creative) => {
    const group = await insertAdGroup(h.db, (await insertCampaign(h.db, org)).id, { creativeType: groupType });
    const res = await api('POST', '/v1/ads', { ad_group_id: group.id, creative });
    expect([res.status, res.body]).toEqual([400, errorBody('invalid_value', 'invalid_request_error', 'creative.type')]);
    expect(await h.db.ad.count({ where: { adGroupId: group.id } })).toBe(0);
  });

  test.each([
    ['ad_group_id missing', { ad_group_id: undefined }, 'required', 'ad_group_id'],
    ['creative missing', { creative: undefined }, 'invalid_value', 'creative'],
    ['card title missing', { creative: { type: 'chat_card' } }, 'required', 'creative.title'],
    ['card title over 30', { creative: { ...card, title: 'x'.repeat(31) } }, 'string_too_long', 'creative.title'],
    ['unknown creative type', { creative: { type: 'banner' } }, 'invalid_value', 'creative.type'],
    ['auto_generate on a poll', { auto_generate: true, creative: poll }, 'poll_cannot_be_ai', 'auto_generate'],
    ['unknown file_id', { creative: { ...card, file_id: 'uploads/2026/01/ffff.png' } }, 'invalid_value', 'creative.file_id'],
    ['image_url not a URL', { creative: { ...card, image_url: 'not a url' } }, 'invalid_image_url', 'creative.image_url'],
    ['file_id and image_url', { creative: { ...card, file_id: 'a', image_url: 'https://x.example/a.png' } }, 'invalid_value', 'creative.file_id'],
  ])('%s → 400', async (_name, overrides, code, param) => {
    const group = await cardGroup();
    const res = await api('POST', '/v1/ads', { ad_group_id: group.id, creative: card, ...overrides });
    expect([res.status, res.body]).toEqual([400, errorBody(code, 'invalid_request_error', param)]);
    expect(await h.db.ad.count({ where: { adGroupId: group.id } })).toBe(0);
  });

  test("another organization's upload is not a file_id of ours", async () => {
    const group = await cardGroup();
    const png = await uniquePng();
    const theirFile = await insertUpload(h.db, store, await organizationIdOf(h.db, other), png.bytes);
    const res = await api('POST', '/v1/ads', { ad_group_id: group.id, creative: { ...card, file_id: theirFile } });
    expect([res.status, res.body]).toEqual([400, errorBody('invalid_value', 'invalid_request_error', 'creative.file_id')]);
  });

  test.each([
    ['unknown', async () => randomUUID()],
    ['malformed', async () => 'group-1'],
    ["another organization's", async () => (await insertAdGroup(h.db, (await insertCampaign(h.db, other)).id)).id],
  ])('%s ad group → 404 not_found on ad_group_id', async (_name, groupId) => {
    const res = await api('POST', '/v1/ads', { ad_group_id: await groupId(), creative: card });
    expect([res.status, res.body]).toEqual([404, errorBody('not_found', 'invalid_request_error', 'ad_group_id')]);
  });
});

describe('GET /v1/ads and /v1/ads/{ad_id}', () => {
  test("review_status is the campaign's; archived reads paused", async () => {
    for (const reviewStatus of ['in_review', 'approved', 'rejected']) {
      const { ad } = await insertTree(h.db, org, { campaign: { reviewStatus }, ad: { status: 'archived', cta: 'Go' } });
      const res = await api('GET', `/v1/ads/${ad.id}`);
      expect([res.status, res.body]).toEqual([
        200,
        {
          id: ad.id,
          ad_group_id: ad.adGroupId,
          name: ad.name,
          status: 'paused',
          review_status: reviewStatus,
          creative: { type: 'chat_card', title: 'Run faster', body: 'Light shoes', cta: 'Go', image_url: null },
        },
      ]);
    }
  });

  test("lists one ad group's ads, newest first, paged", async () => {
    const group = await cardGroup();
    const base = Date.now() - 60_000;
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) ids.push((await insertAd(h.db, group.id, { createdAt: new Date(base + i * 1000) })).id);
    await insertAd(h.db, (await cardGroup()).id);
    const res = await api('GET', `/v1/ads?ad_group_id=${group.id}`);
    expect(res.body).toMatchObject({ object: 'list', count: 3, first_id: ids[2], last_id: ids[0], has_more: false });
    expect(res.body.data.map((ad: { id: string }) => ad.id)).toEqual([ids[2], ids[1], ids[0]]);
    const page = await api('GET', `/v1/ads?ad_group_id=${group.id}&order=asc&limit=2`);
    expect(page.body).toMatchObject({ count: 2, first_id: ids[0], last_id: ids[1], has_more: true });
    const before = await api('GET', `/v1/ads?ad_group_id=${group.id}&before=${ids[0]}`);
    expect(before.body).toMatchObject({ count: 2, first_id: ids[2], last_id: ids[1], has_more: false });
  });

  test('ad_group_id is required; unknown, malformed or foreign → 404', async () => {
    const missing = await api('GET', '/v1/ads');
    expect([missing.status, missing.body]).toEqual([400, errorBody('required', 'invalid_request_error', 'ad_group_id')]);
    const theirs = await insertAdGroup(h.db, (await insertCampaign(h.db, other)).id);
    for (const id of [randomUUID(), 'nope', theirs.id]) {
      const res = await api('GET', `/v1/ads?ad_group_id=${id}`);
      expect([res.status, res.body]).toEqual([404, errorBody('not_found', 'invalid_request_error', 'ad_group_id')]);
    }
  });

  test("get: another organization's, unknown or malformed ad → 404", async () => {
    const { ad } = await insertTree(h.db, other);
    for (const id of [ad.id, randomUUID(), 'nope']) {
      const res = await api('GET', `/v1/ads/${id}`);
      expect([res.status, res.body]).toEqual([404, errorBody('not_found', 'invalid_request_error', 'ad_id')]);
    }
  });
});

describe('POST /v1/ads/{ad_id} (update)', () => {
  test('swapping the image by file_id: new asset, old asset and bytes deleted', async () => {
    const group = await cardGroup();
    const [first, second] = [await uploaded(), await uploaded()];
    const created = await api('POST', '/v1/ads', { ad_group_id: group.id, creative: { ...card, file_id: first.fileId } });
    const oldAssetId = (await h.db.ad.findUniqueOrThrow({ where: { id: created.body.id } })).assetId!;

    const res = await api('POST', `/v1/ads/${created.body.id}`, { creative: { type: 'chat_card', title: 'New look', file_id: second.fileId } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...created.body, creative: { type: 'chat_card', title: 'New look', body: '', image_url: pngUrl(second.sha256) } });
    const row = await h.db.ad.findUniqueOrThrow({ where: { id: created.body.id }, include: { asset: true } });
    expect(row.assetId).not.toBe(oldAssetId);
    expect(row.asset?.sha256).toBe(second.sha256);
    expect(await h.db.asset.count({ where: { id: oldAssetId } })).toBe(0);
    expect(await store.exists(assetKey({ sha256: first.sha256, ext: 'png' }))).toBe(false);
    expect(await store.exists(assetKey({ sha256: second.sha256, ext: 'png' }))).toBe(true);
  });

  test('swapping by image_url; a replacement without image keeps the current one', async () => {
    const group = await cardGroup();
    const first = await uploaded();
    const created = await api('POST', '/v1/ads', { ad_group_id: group.id, creative: { ...card, file_id: first.fileId } });
    const kept = await api('POST', `/v1/ads/${created.body.id}`, { creative: { type: 'chat_card', title: 'Same image', cta: 'Buy' } });
    expect(kept.body.creative).toEqual({ type: 'chat_card', title: 'Same image', body: '', cta: 'Buy', image_url: pngUrl(first.sha256) });

    const png = await uniquePng();
    served.set(`/swap-${png.sha256}.png`, png.bytes);
    const swapped = await api('POST', `/v1/ads/${created.body.id}`, { creative: { ...card, image_url: `${imageBase}/swap-${png.sha256}.png` } });
    expect([swapped.status, swapped.body.creative.image_url]).toEqual([200, pngUrl(png.sha256)]);
    expect(await store.exists(assetKey({ sha256: first.sha256, ext: 'png' }))).toBe(false);
  });

  test('a failed image swap changes nothing', async () => {
    const group = await cardGroup();
    const first = await uploaded();
    const created = await api('POST', '/v1/ads', { ad_group_id: group.id, creative: { ...card, file_id: first.fileId } });
    const res = await api('POST', `/v1/ads/${created.body.id}`, { creative: { ...card, title: 'Lost', file_id: 'uploads/2026/01/dead.png' } });
    expect([res.status, res.body]).toEqual([400, errorBody('invalid_value', 'invalid_request_error', 'creative.file_id')]);
    expect((await api('GET', `/v1/ads/${created.body.id}`)).body).toEqual(created.body);
  });

  test('name and a poll replacement; the name is not re-derived', async () => {
    const group = await insertAdGroup(h.db, (await insertCampaign(h.db, org)).id, { creativeType: 'poll' });
    const ad = await insertAd(h.db, group.id, { creativeType: 'poll', title: 'Old?', body: null, options: ['a', 'b'], targetUrl: 'https://x.example/' });
    const res = await api('POST', `/v1/ads/${ad.id}`, { name: 'Renamed', creative: { ...poll, options: ['1', '2', '3', '4'] } });
    expect([res.status, res.body.name, res.body.creative]).toEqual([200, 'Renamed', { ...poll, options: ['1', '2', '3', '4'] }]);
    const renamed = await api('POST', `/v1/ads/${ad.id}`, { creative: { ...poll, title: 'Another?' } });
    expect(renamed.body.name).toBe('Renamed');
  });

  test.each([
    ['creative type differing from the ad group', { creative: poll }, 'invalid_value', 'creative.type'],
    ['card title missing', { creative: { type: 'chat_card', body: 'x' } }, 'required', 'creative.title'],
    ['auto_generate', { auto_generate: true }, 'invalid_value', 'auto_generate'],
    ['unknown status', { status: 'deleted' }, 'invalid_value', 'status'],
    ['ad_group_id', { ad_group_id: randomUUID() }, 'invalid_value', 'ad_group_id'],
  ])('%s → 400, unchanged', async (_name, body, code, param) => {
    const { ad } = await insertTree(h.db, org, { campaign: approved });
    const res = await api('POST', `/v1/ads/${ad.id}`, body);
    expect([res.status, res.body]).toEqual([400, errorBody(code, 'invalid_request_error', param)]);
    expect(await h.db.ad.findUniqueOrThrow({ where: { id: ad.id } })).toEqual(ad);
  });

  test("another organization's ad → 404", async () => {
    const { ad } = await insertTree(h.db, other);
    const res = await api('POST', `/v1/ads/${ad.id}`, { name: 'Mine' });
    expect([res.status, res.body]).toEqual([404, errorBody('not_found', 'invalid_request_error', 'ad_id')]);
  });
});

describe('ad status', () => {
  const transitions = [
    // [review_status, how, target, HTTP, read-back status or error, stored]
    ['approved', 'activate', 'active', 200, 'active', 'active'],
    ['in_review', 'activate', 'active', 400, 'campaign_not_approved', 'paused'],
    ['rejected', 'activate', 'active', 400, 'campaign_not_approved', 'paused'],
    ['in_review', 'pause', 'paused', 200, 'paused', 'paused'],
    ['rejected', 'archive', 'archived', 200, 'paused', 'archived'],
    ['approved', 'archive', 'archived', 200, 'paused', 'archived'],
  ] as const;

  test.each(transitions)('campaign %s: POST %s', async (reviewStatus, action, _status, httpStatus, outcome, stored) => {
    const { ad } = await insertTree(h.db, org, { campaign: { reviewStatus }, ad: { status: action === 'activate' ? 'paused' : 'active' } });
    const res = await api('POST', `/v1/ads/${ad.id}/${action}`);
    if (httpStatus === 200) expect([res.status, res.body.status, res.body.review_status]).toEqual([200, outcome, reviewStatus]);
    else expect([res.status, res.body]).toEqual([400, errorBody(outcome)]);
    expect((await h.db.ad.findUniqueOrThrow({ where: { id: ad.id } })).status).toBe(stored);
  });

  test.each(transitions)('campaign %s: update toward %s', async (reviewStatus, action, status, httpStatus, outcome, stored) => {
    const { ad } = await insertTree(h.db, org, { campaign: { reviewStatus }, ad: { status: action === 'activate' ? 'paused' : 'active' } });
    const res = await api('POST', `/v1/ads/${ad.id}`, { status });
    if (httpStatus === 200) expect([res.status, res.body.status]).toEqual([200, outcome]);
    else expect([res.status, res.body]).toEqual([400, errorBody(outcome)]);
    expect((await h.db.ad.findUniqueOrThrow({ where: { id: ad.id } })).status).toBe(stored);
  });

  test('an archived ad can be activated again under an approved campaign', async () => {
    const { ad } = await insertTree(h.db, org, { campaign: approved, ad: { status: 'archived' } });
    const res = await api('POST', `/v1/ads/${ad.id}/activate`);
    expect([res.status, res.body.status]).toEqual([200, 'active']);
  });

  test.each(['activate', 'pause', 'archive'])("%s on another organization's ad → 404, unchanged", async (action) => {
    const { ad } = await insertTree(h.db, other, { campaign: approved, ad: { status: 'paused' } });
    const res = await api('POST', `/v1/ads/${ad.id}/${action}`);
    expect([res.status, res.body]).toEqual([404, errorBody('not_found', 'invalid_request_error', 'ad_id')]);
    expect((await h.db.ad.findUniqueOrThrow({ where: { id: ad.id } })).status).toBe('paused');
  });
});
