import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { execFileSync } from 'node:child_process';
import { createTemporalClient } from '../lib/temporal';
import { createAssetStore } from '../lib/asset-store';
import { CAMPAIGN_FIELDS, insertUpload, organizationIdOf, uniquePng } from './support/fixtures';
import { adctl, pipBinary } from './support/cli';
import { emulatorStripe, intentsWhere } from './support/stripe';
import { call, errorBody, newOrg, useHarness } from './support/harness';
import { closeWithin } from '../lib/deadline';

/**
 * POST /v1/campaigns end to end: the API, the campaign-creation saga on the
 * real Temporal server and worker, PostgreSQL, the asset store and the local
 * Stripe emulator (through the stripe SDK).
 */
const h = useHarness();
let imageServer: http.Server;
let imageBase: string;
const images = new Map<string, Buffer>();
const stripe = emulatorStripe;
const temporal = createTemporalClient();
const store = createAssetStore();

/** A PNG no other test uses, served at a loopback URL; returns its URL and sha256. */
async function uniqueImage(): Promise<{ url: string; sha256: string }> {
  const { bytes, sha256 } = await uniquePng();
  const name = `/img-${images.size}-${Date.now()}.png`;
  images.set(name, bytes);
  return { url: `${imageBase}${name}`, sha256 };
}

let nameCounter = 0;
function campaignBody(overrides: Record<string, unknown> = {}, imageUrl?: string) {
  nameCounter += 1;
  return {
    name: `Campaign ${nameCounter} ${Date.now()}`,
    budget: { lifetime_spend_limit_micros: 25_000_000 },
    targeting: { locations: { include: [{ country_code: 'us' }, { id: 'de' }] } },
    ad_groups: [
      {
        name: 'Runners',
        context_hints: ['running', 'marathon training'],
        bidding_config: { max_bid_micros: 2_000_000 },
        ads: [
          { creative: { type: 'chat_card', title: 'Run faster', body: 'Light shoes', cta: 'Shop', ...(imageUrl ? { image_url: imageUrl } : {}) } },
          { auto_generate: true, creative: { type: 'chat_card' } },
        ],
      },
      {
        context_hints: ['polls'],
        ads: [
          { creative: { type: 'poll', title: 'Which distance do you run?', options: ['5k', '10k', 'Marathon'], target_url: 'https://shoes.example/poll' } },
        ],
      },
    ],
    ...overrides,
  };
}

async function treeCounts(organizationPublicId: string) {
  const org = await h.db.organization.findUniqueOrThrow({ where: { publicId: organizationPublicId } });
  const campaigns = await h.db.campaign.count({ where: { organizationId: org.id } });
  const adGroups = await h.db.adGroup.count({ where: { campaign: { organizationId: org.id } } });
  const ads = await h.db.ad.count({ where: { adGroup: { campaign: { organizationId: org.id } } } });
  const assets = await h.db.asset.count({ where: { organizationId: org.id } });
  return { campaigns, adGroups, ads, assets };
}
const nothing = { campaigns: 0, adGroups: 0, ads: 0, assets: 0 };

beforeAll(async () => {
  imageServer = http.createServer((req, res) => {
    const bytes = images.get(req.url ?? '');
    if (!bytes) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'image/png' });
    res.end(bytes);
  });
  await new Promise<void>((r) => imageServer.listen(0, '127.0.0.1', r));
  imageBase = `http://127.0.0.1:${(imageServer.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await closeWithin(5_000, 'temporal connection', () => temporal.connection.close());
  await new Promise((r) => imageServer.close(r));
});

describe('the saga succeeds', () => {
  test('201 paused / in_review; tree and asset stored; USD 10 charged once; review workflow waiting', async () => {
    const org = await newOrg(h.db);
    const image = await uniqueImage();
    const body = campaignBody({ description: 'Spring push' }, image.url);
    const before = Math.floor(Date.now() / 1000);
    const res = await call(h.url, 'POST', '/v1/campaigns', { token: org.api_key, body });
    expect(res.status).toBe(201);
    const campaign = res.body;
    expect(Object.keys(campaign).sort()).toEqual(CAMPAIGN_FIELDS);
    expect(campaign).toMatchObject({
      name: body.name,
      description: 'Spring push',
      status: 'paused',
      review_status: 'in_review',
      budget: { lifetime_spend_limit_micros: 25_000_000 },
      end_time: null,
      recurring_frequency: 'daily',
      pricing_model: 'cpm',
      targeting: {
        locations: {
          include: [
            { id: 'US', type: 'country', country_code: 'US' },
            { id: 'DE', type: 'country', country_code: 'DE' },
          ],
        },
      },
    });
    // Default start: about two days ahead.
    expect(campaign.start_time).toBeGreaterThanOrEqual(before + 2 * 86400 - 60);
    expect(campaign.start_time).toBeLessThanOrEqual(before + 2 * 86400 + 120);

    expect(await treeCounts(org.org_public_id)).toEqual({ campaigns: 1, adGroups: 2, ads: 3, assets: 1 });
    expect(await store.exists(`assets/${image.sha256}.png`)).toBe(true);

    const row = await h.db.campaign.findUniqueOrThrow({ where: { id: campaign.id } });
    const intent = await stripe().paymentIntents.retrieve(row.depositPaymentIntentId!);
    expect(intent).toMatchObject({ status: 'succeeded', amount: 1000, currency: 'usd' });
    expect(intent.metadata.campaign_id).toBe(campaign.id);

    const review = await temporal.workflow.getHandle(`campaign-review-${campaign.id}`).describe();
    expect(review.status.name).toBe('RUNNING');
    // Findable in the Temporal UI by what a reviewer knows: the campaign's name, id and organization.
    expect(review.searchAttributes).toMatchObject({ CampaignId: [campaign.id], CampaignName: [campaign.name], OrganizationPublicId: [org.org_public_id] });

    // The ad's image reads back as the stored asset's stable URL, which serves the bytes.
    const groups = await call(h.url, 'GET', `/v1/ad_groups?campaign_id=${campaign.id}&order=asc`, { token: org.api_key });
    const ads = await call(h.url, 'GET', `/v1/ads?ad_group_id=${groups.body.data[0].id}&order=asc`, { token: org.api_key });
    const card = ads.body.data.find((ad: any) => ad.creative.title === 'Run faster');
    expect(card.creative.image_url).toMatch(new RegExp(`/assets/${image.sha256}\\.png$`));
    expect(card.review_status).toBe('in_review');
    const served = await fetch(card.creative.image_url.replace(/^https?:\/\/[^/]+/, h.url));
    expect(served.status).toBe(200);
    expect(Buffer.from(await served.arrayBuffer())).toEqual(images.get(new URL(image.url).pathname));
    const generated = ads.body.data.find((ad: any) => ad.creative.title !== 'Run faster');
    expect(generated.creative.title.length).toBeGreaterThan(0);
    expect(generated.creative.title.length).toBeLessThanOrEqual(30);
  });
});

describe('images from uploads (file_id)', () => {
  test('each ad gets its own asset from one file_id; a decline removes the assets but not the upload', async () => {
    const org = await newOrg(h.db);
    const { bytes, sha256 } = await uniquePng();
    const fileId = await insertUpload(h.db, store, await organizationIdOf(h.db, org), bytes);
    const card = (title: string) => ({ creative: { type: 'chat_card', title, file_id: fileId } });
    const body = { ...campaignBody(), ad_groups: [{ context_hints: ['x'], ads: [card('One'), card('Two')] }] };
    const res = await call(h.url, 'POST', '/v1/campaigns', { token: org.api_key, body });
    expect(res.status).toBe(201);
    expect(await treeCounts(org.org_public_id)).toEqual({ campaigns: 1, adGroups: 1, ads: 2, assets: 2 });
    expect(await store.exists(`assets/${sha256}.png`)).toBe(true);

    const declined = await newOrg(h.db, { paymentMethodId: 'pm_card_chargeDeclined' });
    const { bytes: other, sha256: otherSha } = await uniquePng();
    const otherFile = await insertUpload(h.db, store, await organizationIdOf(h.db, declined), other);
    const failed = await call(h.url, 'POST', '/v1/campaigns', {
      token: declined.api_key,
      body: { ...campaignBody(), ad_groups: [{ context_hints: ['x'], ads: [{ creative: { type: 'chat_card', title: 'T', file_id: otherFile } }] }] },
    });
    expect(failed.status).toBe(402);
    expect(await treeCounts(declined.org_public_id)).toEqual(nothing);
    expect(await store.exists(`assets/${otherSha}.png`)).toBe(false);
    expect(await store.get(otherFile)).toEqual(other); // the upload itself stays usable
  });

  test("another organization's file_id is invalid_value naming the creative", async () => {
    const owner = await newOrg(h.db);
    const fileId = await insertUpload(h.db, store, await organizationIdOf(h.db, owner), (await uniquePng()).bytes);
    const org = await newOrg(h.db);
    const body = { ...campaignBody(), ad_groups: [{ ads: [{ creative: { type: 'chat_card', title: 'T', file_id: fileId } }] }] };
    const res = await call(h.url, 'POST', '/v1/campaigns', { token: org.api_key, body });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(errorBody('invalid_value', 'invalid_request_error', 'ad_groups[0].ads[0].creative.file_id'));
    expect(await treeCounts(org.org_public_id)).toEqual(nothing);
  });
});

describe('the saga fails and leaves nothing behind', () => {
  test('no default payment method: 400 billing_not_configured', async () => {
    const org = await newOrg(h.db, { paymentMethodId: undefined });
    const res = await call(h.url, 'POST', '/v1/campaigns', { token: org.api_key, body: campaignBody() });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(errorBody('billing_not_configured'));
    expect(await treeCounts(org.org_public_id)).toEqual(nothing);
  });

  test('declined card: 402 card_declined; the tree and the downloaded asset are removed', async () => {
    const org = await newOrg(h.db, { paymentMethodId: 'pm_card_chargeDeclined' });
    const image = await uniqueImage();
    const res = await call(h.url, 'POST', '/v1/campaigns', { token: org.api_key, body: campaignBody({}, image.url) });
    expect(res.status).toBe(402);
    expect(res.body).toEqual(errorBody('card_declined'));
    expect(await treeCounts(org.org_public_id)).toEqual(nothing);
    expect(await store.exists(`assets/${image.sha256}.png`)).toBe(false);
  });

  test.each(['pm_emulator_http_500', 'pm_emulator_unreachable'])('payment provider down (%s): 502 payment_provider_error', async (pm) => {
    const org = await newOrg(h.db, { paymentMethodId: pm });
    const image = await uniqueImage();
    const res = await call(h.url, 'POST', '/v1/campaigns', { token: org.api_key, body: campaignBody({}, image.url) });
    expect(res.status).toBe(502);
    expect(res.body).toEqual(errorBody('payment_provider_error', 'server_error'));
    expect(await treeCounts(org.org_public_id)).toEqual(nothing);
    expect(await store.exists(`assets/${image.sha256}.png`)).toBe(false);
  });

  test('charged, then the provider stays unreachable: 502, and the deposit is refunded, not kept', async () => {
    const org = await newOrg(h.db, { paymentMethodId: 'pm_emulator_charge_then_unreachable' });
    const res = await call(h.url, 'POST', '/v1/campaigns', { token: org.api_key, body: campaignBody() });
    expect(res.status).toBe(502);
    expect(res.body).toEqual(errorBody('payment_provider_error', 'server_error'));
    expect(await treeCounts(org.org_public_id)).toEqual(nothing);
    const organizationId = await organizationIdOf(h.db, org);
    const [intent] = await intentsWhere((pi) => pi.metadata.organization_id === organizationId);
    expect(intent.status).toBe('succeeded'); // the card was charged...
    // ...and the charge was refunded already: a second refund is refused.
    await expect(stripe().refunds.create({ payment_intent: intent.id })).rejects.toMatchObject({ code: 'charge_already_refunded' });
  });

  test('a declined deposit intent is canceled', async () => {
    const org = await newOrg(h.db, { paymentMethodId: 'pm_card_chargeDeclinedInsufficientFunds' });
    const res = await call(h.url, 'POST', '/v1/campaigns', { token: org.api_key, body: campaignBody() });
    expect(res.status).toBe(402);
    const organizationId = await organizationIdOf(h.db, org);
    const intents = await intentsWhere((pi) => pi.metadata.organization_id === organizationId);
    expect(intents.map((pi) => pi.status)).toEqual(['canceled']);
  });

  test('the deposit is charged off-session: a card that needs authentication is declined, not left waiting for the cardholder', async () => {
    const org = await newOrg(h.db, { paymentMethodId: 'pm_card_authenticationRequired' });
    const res = await call(h.url, 'POST', '/v1/campaigns', { token: org.api_key, body: campaignBody() });
    expect(res.status).toBe(402);
    expect(res.body).toEqual(errorBody('card_declined'));
    const organizationId = await organizationIdOf(h.db, org);
    const intents = await intentsWhere((pi) => pi.metadata.organization_id === organizationId);
    // On-session, the provider would have asked for 3-D Secure (requires_action, no payment error).
    expect(intents.map((pi) => [pi.status, pi.last_payment_error?.decline_code, pi.next_action ?? null])).toEqual([
      ['canceled', 'authentication_required', null],
    ]);
  });

  test('an image_url that cannot be fetched: 400 image_fetch_failed naming the creative, nothing charged', async () => {
    const org = await newOrg(h.db);
    const body = campaignBody({}, `${imageBase}/missing.png`);
    const res = await call(h.url, 'POST', '/v1/campaigns', { token: org.api_key, body });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(errorBody('image_fetch_failed', 'invalid_request_error', 'ad_groups[0].ads[0].creative.image_url'));
    expect(await treeCounts(org.org_public_id)).toEqual(nothing);
    // The deposit's intent, made beside the tree, was canceled, never confirmed.
    const organizationId = await organizationIdOf(h.db, org);
    const intents = await intentsWhere((pi) => pi.metadata.organization_id === organizationId);
    expect(intents.map((pi) => [pi.status, pi.amount_received])).toEqual([['canceled', 0]]);
  });

  test('name_conflict: 409, and the second request charges nothing (its intent is canceled)', async () => {
    const org = await newOrg(h.db);
    const body = campaignBody();
    expect((await call(h.url, 'POST', '/v1/campaigns', { token: org.api_key, body })).status).toBe(201);
    const again = await call(h.url, 'POST', '/v1/campaigns', { token: org.api_key, body: { ...body, description: 'other' } });
    expect(again.status).toBe(409);
    expect(again.body).toEqual(errorBody('name_conflict', 'invalid_request_error', 'name'));
    expect(await treeCounts(org.org_public_id)).toMatchObject({ campaigns: 1 });
    const organizationId = await organizationIdOf(h.db, org);
    // The second saga's intent, made beside its tree, was never confirmed: the rollback canceled it.
    const intents = await intentsWhere((pi) => pi.metadata.organization_id === organizationId);
    expect(intents.map((pi) => [pi.status, pi.amount_received]).sort()).toEqual([
      ['canceled', 0],
      ['succeeded', 1000],
    ]);
  });

  test('no ad account: 400 no_ad_account; unknown ad_account_id: 404 not_found', async () => {
    const bare = await newOrg(h.db, { withAdAccount: false });
    const none = await call(h.url, 'POST', '/v1/campaigns', { token: bare.api_key, body: campaignBody() });
    expect(none.status).toBe(400);
    expect(none.body).toEqual(errorBody('no_ad_account', 'invalid_request_error', 'ad_account_id'));

    const org = await newOrg(h.db);
    const other = await newOrg(h.db);
    for (const id of ['5f0c7a3e-1c1d-4c35-9a59-2b9f4f0e0a11', other.ad_account_id]) {
      const res = await call(h.url, 'POST', '/v1/campaigns', { token: org.api_key, body: campaignBody({ ad_account_id: id }) });
      expect(res.status).toBe(404);
      expect(res.body).toEqual(errorBody('not_found', 'invalid_request_error', 'ad_account_id'));
    }
    expect(await treeCounts(org.org_public_id)).toEqual(nothing);
  });
});

describe('Idempotency-Key', () => {
  test('the same key replays the first response; one campaign, one charge', async () => {
    const org = await newOrg(h.db);
    const body = campaignBody();
    const headers = { 'Idempotency-Key': `key-${Date.now()}` };
    const first = await call(h.url, 'POST', '/v1/campaigns', { token: org.api_key, body, headers });
    expect(first.status).toBe(201);
    // Same body, keys in another order: still the same request.
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const second = await call(h.url, 'POST', '/v1/campaigns', { token: org.api_key, body: reordered, headers });
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await treeCounts(org.org_public_id)).toMatchObject({ campaigns: 1 });
  });

  test('the same key with another body: 409 idempotency_key_reused', async () => {
    const org = await newOrg(h.db);
    const headers = { 'Idempotency-Key': `key-${Date.now()}` };
    expect((await call(h.url, 'POST', '/v1/campaigns', { token: org.api_key, body: campaignBody(), headers })).status).toBe(201);
    const res = await call(h.url, 'POST', '/v1/campaigns', { token: org.api_key, body: campaignBody(), headers });
    expect(res.status).toBe(409);
    expect(res.body).toEqual(errorBody('idempotency_key_reused'));
  });

  test('errors are replayed too: a declined create stays 402 under its key', async () => {
    const org = await newOrg(h.db, { paymentMethodId: 'pm_card_chargeDeclined' });
    const body = campaignBody();
    const headers = { 'Idempotency-Key': `key-${Date.now()}` };
    const first = await call(h.url, 'POST', '/v1/campaigns', { token: org.api_key, body, headers });
    expect(first.status).toBe(402);
    // Fixing the card does not change what this key answers.
    const orgRow = await h.db.organization.findUniqueOrThrow({ where: { publicId: org.org_public_id } });
    await h.db.organization.update({ where: { id: orgRow.id }, data: { defaultPaymentMethodId: 'pm_card_visa' } });
    const second = await call(h.url, 'POST', '/v1/campaigns', { token: org.api_key, body, headers });
    expect(second.status).toBe(402);
    expect(second.body).toEqual(first.body);
    expect(await treeCounts(org.org_public_id)).toEqual(nothing);
  });

  test('a 5xx is not stored: the same key, retried once the provider is back, creates the campaign', async () => {
    const org = await newOrg(h.db, { paymentMethodId: 'pm_emulator_http_500' });
    const body = campaignBody();
    const headers = { 'Idempotency-Key': `key-${Date.now()}` };
    const first = await call(h.url, 'POST', '/v1/campaigns', { token: org.api_key, body, headers });
    expect(first.status).toBe(502);
    await h.db.organization.update({ where: { id: await organizationIdOf(h.db, org) }, data: { defaultPaymentMethodId: 'pm_card_visa' } });
    const second = await call(h.url, 'POST', '/v1/campaigns', { token: org.api_key, body, headers });
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    const third = await call(h.url, 'POST', '/v1/campaigns', { token: org.api_key, body, headers });
    expect(third.body).toEqual(second.body);
    expect(third.headers.get('idempotent-replayed')).toBe('true');
    expect(await treeCounts(org.org_public_id)).toMatchObject({ campaigns: 1 });
  });

  test('two concurrent requests with one key: one campaign, one charge, the same answer', async () => {
    const org = await newOrg(h.db);
    const body = campaignBody();
    const headers = { 'Idempotency-Key': `key-${Date.now()}` };
    const [a, b] = await Promise.all([
      call(h.url, 'POST', '/v1/campaigns', { token: org.api_key, body, headers }),
      call(h.url, 'POST', '/v1/campaigns', { token: org.api_key, body, headers }),
    ]);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.id).toBe(b.body.id);
    expect(await treeCounts(org.org_public_id)).toMatchObject({ campaigns: 1 });
    expect(await intentsWhere((pi) => pi.metadata.campaign_id === a.body.id)).toHaveLength(1);
  });
});

describe('review', () => {
  test('adctl review approve: approved, then the campaign can be activated; ads inherit the status', async () => {
    const org = await newOrg(h.db);
    const created = await call(h.url, 'POST', '/v1/campaigns', { token: org.api_key, body: campaignBody() });
    expect(created.status).toBe(201);
    const early = await call(h.url, 'POST', `/v1/campaigns/${created.body.id}/activate`, { token: org.api_key });
    expect(early.status).toBe(400);
    expect(early.body).toEqual(errorBody('campaign_not_approved'));

    const approved = await adctl('review', 'approve', created.body.id);
    expect(approved.code).toBe(0);
    expect(JSON.parse(approved.stdout)).toEqual({ campaign_id: created.body.id, review_status: 'approved' });

    const activated = await call(h.url, 'POST', `/v1/campaigns/${created.body.id}/activate`, { token: org.api_key });
    expect(activated.status).toBe(200);
    expect(activated.body).toMatchObject({ status: 'active', review_status: 'approved' });
    const groups = await call(h.url, 'GET', `/v1/ad_groups?campaign_id=${created.body.id}`, { token: org.api_key });
    const ads = await call(h.url, 'GET', `/v1/ads?ad_group_id=${groups.body.data[0].id}`, { token: org.api_key });
    expect(ads.body.data.every((ad: any) => ad.review_status === 'approved')).toBe(true);

    const twice = await adctl('review', 'reject', created.body.id);
    expect(twice.code).not.toBe(0);
    expect(twice.stdout).toBe('');
    expect(twice.stderr).toMatch(/already reviewed/);
  });

  test('adctl review reject --reason: rejected is final', async () => {
    const org = await newOrg(h.db);
    const created = await call(h.url, 'POST', '/v1/campaigns', { token: org.api_key, body: campaignBody() });
    const rejected = await adctl('review', 'reject', created.body.id, '--reason', 'misleading claims');
    expect(rejected.code).toBe(0);
    expect(JSON.parse(rejected.stdout)).toEqual({ campaign_id: created.body.id, review_status: 'rejected' });
    const row = await h.db.campaign.findUniqueOrThrow({ where: { id: created.body.id } });
    expect(row.reviewReason).toBe('misleading claims');
    const activate = await call(h.url, 'POST', `/v1/campaigns/${created.body.id}/activate`, { token: org.api_key });
    expect(activate.status).toBe(400);
    expect(activate.body).toEqual(errorBody('campaign_not_approved'));
  });

  test('a reviewer can signal from the Temporal CLI, as docs/operations.md shows', async () => {
    const org = await newOrg(h.db);
    const created = await call(h.url, 'POST', '/v1/campaigns', { token: org.api_key, body: campaignBody() });
    execFileSync(pipBinary('temporal'), [
      'workflow',
      'signal',
      '--address',
      '127.0.0.1:7233',
      '--workflow-id',
      `campaign-review-${created.body.id}`,
      '--name',
      'review',
      '--input',
      '{"decision":"approved"}',
    ]);
    expect(await temporal.workflow.getHandle(`campaign-review-${created.body.id}`).result()).toBe('approved');
    const read = await call(h.url, 'GET', `/v1/campaigns/${created.body.id}`, { token: org.api_key });
    expect(read.body.review_status).toBe('approved');
  });

  test('adctl review of an unknown campaign exits non-zero', async () => {
    const res = await adctl('review', 'approve', '5f0c7a3e-1c1d-4c35-9a59-2b9f4f0e0a11');
    expect(res.code).not.toBe(0);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/no such campaign/);
  });
});

describe('a body that breaks several rules', () => {
  test('400 names the first as `error` and lists every field in `errors`; nothing is created or charged', async () => {
    const org = await newOrg(h.db);
    const body = campaignBody({ name: '', budget: { lifetime_spend_limit_micros: 5 } });
    (body.ad_groups[0].bidding_config as { max_bid_micros: number }).max_bid_micros = 0.5;
    const res = await call(h.url, 'POST', '/v1/campaigns', { token: org.api_key, body });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual(errorBody('required', 'invalid_request_error', 'name').error);
    expect(res.body.errors.map((e: { code: string; param: string }) => [e.code, e.param])).toEqual([
      ['required', 'name'],
      ['invalid_value', 'budget.lifetime_spend_limit_micros'],
      ['invalid_value', 'ad_groups[0].bidding_config.max_bid_micros'],
    ]);
    expect(res.body.errors.every((e: { type: string; message: string }) => e.type === 'invalid_request_error' && e.message.length > 0)).toBe(true);
    expect((await treeCounts(org.org_public_id)).campaigns).toBe(0);
  });

  test('one broken rule answers the error object alone', async () => {
    const org = await newOrg(h.db);
    const res = await call(h.url, 'POST', '/v1/campaigns', { token: org.api_key, body: campaignBody({ name: '' }) });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(errorBody('required', 'invalid_request_error', 'name'));
  });
});

describe('rate limit on POST /v1/campaigns', () => {
  test('60 per hour per key, on top of the 1000 bucket', async () => {
    const org = await newOrg(h.db);
    // Invalid bodies are enough: the limit applies before validation.
    for (let i = 0; i < 60; i++) {
      const res = await call(h.url, 'POST', '/v1/campaigns', { token: org.api_key, body: {} });
      expect(res.status).toBe(400);
    }
    const limited = await call(h.url, 'POST', '/v1/campaigns', { token: org.api_key, body: campaignBody() });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: { message: 'request was throttled', type: 'rate_limit_error', param: null, code: 'rate_limit_exceeded' } });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // Other endpoints still answer.
    expect((await call(h.url, 'GET', '/v1/campaigns', { token: org.api_key })).status).toBe(200);
  });
});
