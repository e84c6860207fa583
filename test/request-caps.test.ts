/**
 * Request size (issue 7, item 1): documented caps answered with 400
 * `invalid_value` and the exact param; each distinct image loaded once per
 * request and stored once; image downloads and generator calls run in
 * parallel, within their bounds.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdGroup } from '../domain/campaigns/ad-groups';
import { adGroupCreateSchema } from '../domain/campaigns/ad-group-schema';
import { createAdAsset, createImageLoader, deleteAssets, IMAGE_LOAD_CONCURRENCY } from '../domain/assets/ad-images';
import { MAX_AD_GROUPS_PER_CAMPAIGN, MAX_ADS_PER_AD_GROUP, MAX_DISTINCT_IMAGES_PER_REQUEST } from '../domain/caps';
import { GENERATOR_CONCURRENCY } from '../domain/campaigns/tree';
import { templateGenerator, type CreativeGenerator } from '../domain/creatives/generator';
import { parseOrThrow } from '../lib/validation';
import sharp from 'sharp';
import { createAssetStore, type AssetStore } from '../lib/asset-store';
import { insertAd, insertAdGroup, insertCampaign, insertUpload, organizationIdOf, uniquePng } from './support/fixtures';
import { apiClient, errorBody, newOrg, useHarness } from './support/harness';

const h = useHarness();
let org: Awaited<ReturnType<typeof newOrg>>;
let organizationId: string;
const store = createAssetStore();

/** Loopback image server: counts requests per path; `hold` makes it answer in batches (see below). */
let imageServer: http.Server;
let imageBase: string;
const images = new Map<string, Buffer>();
const hits = new Map<string, number>();
let batch: { size: number; total: number; held: (() => void)[]; received: number; maxInFlight: number; inFlight: number } | null = null;

beforeAll(async () => {
  org = await newOrg(h.db);
  organizationId = await organizationIdOf(h.db, org);
  imageServer = http.createServer((req, res) => {
    const path = req.url ?? '';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const send = () => {
      if (batch) batch.inFlight -= 1;
      const bytes = images.get(path);
      if (bytes) res.writeHead(200, { 'content-type': 'image/png' }).end(bytes);
      else res.writeHead(404).end();
    };
    if (!batch) return send();
    // Held until `size` requests are in flight at once (or every request has come):
    // a loader that runs one at a time never fills a batch.
    batch.received += 1;
    batch.inFlight += 1;
    batch.maxInFlight = Math.max(batch.maxInFlight, batch.inFlight);
    batch.held.push(send);
    if (batch.held.length === batch.size || batch.received === batch.total) batch.held.splice(0).forEach((release) => release());
  });
  await new Promise<void>((resolve) => imageServer.listen(0, '127.0.0.1', resolve));
  imageBase = `http://127.0.0.1:${(imageServer.address() as AddressInfo).port}`;
});
afterAll(async () => {
  imageServer.closeAllConnections();
  await new Promise((resolve) => imageServer.close(resolve));
});

const api = apiClient(
  () => h,
  () => org,
);
const card = (i: number, image: Record<string, string> = {}) => ({ creative: { type: 'chat_card', title: `Ad ${i}`, ...image } });

describe('caps: 400 invalid_value with the exact param', () => {
  test(`more than ${MAX_ADS_PER_AD_GROUP} ads in one ad group`, async () => {
    const campaign = await insertCampaign(h.db, org);
    const ads = Array.from({ length: MAX_ADS_PER_AD_GROUP + 1 }, (_, i) => card(i));
    const res = await api('POST', '/v1/ad_groups', { campaign_id: campaign.id, name: 'G', context_hints: ['x'], ads });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(errorBody('invalid_value', 'invalid_request_error', 'ads'));
    expect(await h.db.adGroup.count({ where: { campaignId: campaign.id } })).toBe(0);

    const nested = await api('POST', '/v1/campaigns', {
      name: `Caps ${Date.now()}`,
      budget: { lifetime_spend_limit_micros: 25_000_000 },
      ad_groups: [{ ads: [card(0)] }, { ads }],
    });
    expect(nested.status).toBe(400);
    expect(nested.body).toEqual(errorBody('invalid_value', 'invalid_request_error', 'ad_groups[1].ads'));
  });

  test(`more than ${MAX_AD_GROUPS_PER_CAMPAIGN} ad groups in one campaign create`, async () => {
    const res = await api('POST', '/v1/campaigns', {
      name: `Caps ${Date.now()}`,
      budget: { lifetime_spend_limit_micros: 25_000_000 },
      ad_groups: Array.from({ length: MAX_AD_GROUPS_PER_CAMPAIGN + 1 }, () => ({ ads: [card(0)] })),
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(errorBody('invalid_value', 'invalid_request_error', 'ad_groups'));
  });

  test(`more than ${MAX_DISTINCT_IMAGES_PER_REQUEST} distinct images in one request; repeats do not count`, async () => {
    const campaign = await insertCampaign(h.db, org);
    // Checked before anything is loaded: these file ids need not exist.
    const ads = [
      ...Array.from({ length: MAX_DISTINCT_IMAGES_PER_REQUEST }, (_, i) => card(i, { file_id: `uploads/2026/01/${i}.png` })),
      card(98, { file_id: 'uploads/2026/01/0.png' }), // a repeat
      card(99, { image_url: `${imageBase}/one-too-many.png` }),
    ];
    const res = await api('POST', '/v1/ad_groups', { campaign_id: campaign.id, name: 'G', context_hints: ['x'], ads });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(errorBody('invalid_value', 'invalid_request_error', `ads[${MAX_DISTINCT_IMAGES_PER_REQUEST + 1}].creative.image_url`));
    expect(hits.get('/one-too-many.png')).toBeUndefined();

    // Across the ad groups of a campaign create.
    const half = MAX_DISTINCT_IMAGES_PER_REQUEST / 2;
    const nested = await api('POST', '/v1/campaigns', {
      name: `Caps ${Date.now()}`,
      budget: { lifetime_spend_limit_micros: 25_000_000 },
      ad_groups: [
        { ads: Array.from({ length: half }, (_, i) => card(i, { image_url: `${imageBase}/a${i}.png` })) },
        { ads: Array.from({ length: half + 1 }, (_, i) => card(i, { image_url: `${imageBase}/b${i}.png` })) },
      ],
    });
    expect(nested.status).toBe(400);
    expect(nested.body).toEqual(errorBody('invalid_value', 'invalid_request_error', `ad_groups[1].ads[${half}].creative.image_url`));
  });

  test('the caps count what the parent already holds', async () => {
    const campaign = await insertCampaign(h.db, org);
    const full = await insertAdGroup(h.db, campaign.id);
    for (let i = 0; i < MAX_ADS_PER_AD_GROUP; i++) await insertAd(h.db, full.id);
    const ad = await api('POST', '/v1/ads', { ad_group_id: full.id, ...card(0) });
    expect(ad.status).toBe(400);
    expect(ad.body).toEqual(errorBody('invalid_value', 'invalid_request_error', 'ad_group_id'));

    for (let i = 1; i < MAX_AD_GROUPS_PER_CAMPAIGN; i++) await insertAdGroup(h.db, campaign.id);
    const group = await api('POST', '/v1/ad_groups', { campaign_id: campaign.id, name: 'G', context_hints: ['x'], ads: [card(0)] });
    expect(group.status).toBe(400);
    expect(group.body).toEqual(errorBody('invalid_value', 'invalid_request_error', 'campaign_id'));
    expect(await h.db.adGroup.count({ where: { campaignId: campaign.id } })).toBe(MAX_AD_GROUPS_PER_CAMPAIGN);
  });
});

/** The asset store, counting reads and writes. */
function countingStore(inner: AssetStore) {
  const counts = { get: new Map<string, number>(), put: new Map<string, number>() };
  const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
  const wrapped: AssetStore = {
    get: (key) => {
      bump(counts.get, key);
      return inner.get(key);
    },
    put: (key, bytes) => {
      bump(counts.put, key);
      return inner.put(key, bytes);
    },
    delete: (key) => inner.delete(key),
    exists: (key) => inner.exists(key),
  };
  return { store: wrapped, counts };
}

describe('one load per distinct image, bounded parallel work', () => {
  test('an image named by many ads is downloaded (or read) once, decoded once and written once', async () => {
    const campaign = await insertCampaign(h.db, org);
    const shared = await uniquePng();
    images.set('/shared.png', shared.bytes);
    const upload = await uniquePng();
    const fileId = await insertUpload(h.db, store, organizationId, upload.bytes);
    const { store: counted, counts } = countingStore(store);
    // inspectImage decodes every pixel with sharp's stats(): once per distinct image.
    const decodes = jest.spyOn(sharp.prototype, 'stats');

    const input = parseOrThrow(adGroupCreateSchema, {
      campaign_id: campaign.id,
      name: 'Shared',
      context_hints: ['x'],
      ads: [
        ...Array.from({ length: 20 }, (_, i) => card(i, { image_url: `${imageBase}/shared.png` })),
        ...Array.from({ length: 20 }, (_, i) => card(20 + i, { file_id: fileId })),
      ],
    });
    const group = await createAdGroup({ db: h.db, assets: counted, creatives: templateGenerator }, organizationId, input);

    expect(hits.get('/shared.png')).toBe(1);
    expect(counts.get.get(fileId)).toBe(1);
    expect(decodes).toHaveBeenCalledTimes(2);
    decodes.mockRestore();
    expect(counts.put.get(`assets/${shared.sha256}.png`)).toBe(1);
    expect(counts.put.get(`assets/${upload.sha256}.png`)).toBe(1);
    // Every ad still has its own asset, on the shared bytes.
    const ads = await h.db.ad.findMany({ where: { adGroupId: group.id }, include: { asset: true } });
    expect(ads).toHaveLength(40);
    expect(new Set(ads.map((ad) => ad.assetId)).size).toBe(40);
    expect(ads.filter((ad) => ad.asset?.sha256 === shared.sha256)).toHaveLength(20);
    expect(ads.filter((ad) => ad.asset?.sha256 === upload.sha256)).toHaveLength(20);
    expect(ads.every((ad) => ad.asset?.sizeBytes === (ad.asset?.sha256 === shared.sha256 ? shared.bytes.length : upload.bytes.length))).toBe(true);
  });

  test('ads naming one image share one loaded copy, whose bytes are let go once stored', async () => {
    const { bytes } = await uniquePng();
    const fileId = await insertUpload(h.db, store, organizationId, bytes);
    const load = createImageLoader(h.db, store, organizationId);
    const [a, b] = await Promise.all([load({ file_id: fileId }, 'ads[0].creative'), load({ file_id: fileId }, 'ads[1].creative')]);
    expect(a).toBe(b);
    expect(a!.bytes).toEqual(bytes);
    const assetIds = await h.db.$transaction(async (tx) => [
      await createAdAsset(tx, store, organizationId, a!),
      await createAdAsset(tx, store, organizationId, b!),
    ]);
    expect(a!.bytes).toBeNull();
    expect(a!.sizeBytes).toBe(bytes.length);
    expect(await h.db.asset.count({ where: { id: { in: assetIds }, sizeBytes: bytes.length } })).toBe(2);
    await deleteAssets(h.db, store, assetIds);
  });

  test(`downloads run ${IMAGE_LOAD_CONCURRENCY} at a time, not one by one and not all at once`, async () => {
    const campaign = await insertCampaign(h.db, org);
    const total = 10;
    for (let i = 0; i < total; i++) images.set(`/parallel-${i}.png`, (await uniquePng()).bytes);
    batch = { size: IMAGE_LOAD_CONCURRENCY, total, held: [], received: 0, maxInFlight: 0, inFlight: 0 };
    try {
      const res = await api('POST', '/v1/ad_groups', {
        campaign_id: campaign.id,
        name: 'Parallel',
        context_hints: ['x'],
        ads: Array.from({ length: total }, (_, i) => card(i, { image_url: `${imageBase}/parallel-${i}.png` })),
      });
      expect(res.status).toBe(201);
      expect(batch.maxInFlight).toBe(IMAGE_LOAD_CONCURRENCY);
    } finally {
      batch = null;
    }
  }, 30_000);

  test(`auto_generate calls the generator ${GENERATOR_CONCURRENCY} at a time`, async () => {
    const campaign = await insertCampaign(h.db, org);
    const total = 12;
    let inFlight = 0;
    let maxInFlight = 0;
    let held: (() => void)[] = [];
    let received = 0;
    const generator: CreativeGenerator = {
      generate: (context) =>
        new Promise((resolve) => {
          inFlight += 1;
          received += 1;
          maxInFlight = Math.max(maxInFlight, inFlight);
          held.push(() => {
            inFlight -= 1;
            resolve(templateGenerator.generate(context));
          });
          if (held.length === GENERATOR_CONCURRENCY || received === total) {
            const release = held;
            held = [];
            release.forEach((r) => r());
          }
        }),
    };
    const input = parseOrThrow(adGroupCreateSchema, {
      campaign_id: campaign.id,
      name: 'Generated',
      context_hints: ['running'],
      ads: Array.from({ length: total }, () => ({ auto_generate: true, creative: { type: 'chat_card' } })),
    });
    const group = await createAdGroup({ db: h.db, assets: store, creatives: generator }, organizationId, input);
    expect(maxInFlight).toBe(GENERATOR_CONCURRENCY);
    expect(await h.db.ad.count({ where: { adGroupId: group.id } })).toBe(total);
  });

  test('the first failing ad in request order is the one reported', async () => {
    const campaign = await insertCampaign(h.db, org);
    images.set('/ok.png', (await uniquePng()).bytes);
    const res = await api('POST', '/v1/ad_groups', {
      campaign_id: campaign.id,
      name: 'Failing',
      context_hints: ['x'],
      ads: [
        card(0, { image_url: `${imageBase}/ok.png` }),
        card(1, { image_url: `${imageBase}/missing-1.png` }),
        card(2, { image_url: `${imageBase}/missing-2.png` }),
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(errorBody('image_fetch_failed', 'invalid_request_error', 'ads[1].creative.image_url'));
  });
});
