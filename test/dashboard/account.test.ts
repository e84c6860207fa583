/**
 * The dashboard's account endpoints (api/dashboard/account.ts) over HTTP with a
 * session cookie and its CSRF token: the website, the logo and the card, their
 * checks, roles and CSRF, what /v1 reads back, and the auction serving a logo
 * within seconds of its upload. (The Account page in a browser: delivery.test.ts.)
 */
import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { createAssetStore } from '../../lib/asset-store';
import { config } from '../../lib/config';
import { csrfTokenFor } from '../../lib/csrf';
import { createMember } from '../../domain/organizations/service';
import { insertTree, organizationIdOf, uniquePng } from '../support/fixtures';
import { call, errorBody, newOrg, useHarness } from '../support/harness';
import { until } from '../support/wait';
import { adRequest, contextualRequest, startAuction, type AuctionHarness } from '../auction/support';

const h = useHarness();

type Org = Awaited<ReturnType<typeof newOrg>>;

/** A request as the dashboard's page sends it: the session cookie, and its CSRF token unless `csrf` is false. */
function asMember(
  token: string,
  method: string,
  path: string,
  options: { body?: unknown; rawBody?: Buffer; headers?: Record<string, string>; csrf?: boolean } = {},
) {
  const headers: Record<string, string> = { cookie: `dashboard_session=${token}`, ...options.headers };
  if (options.csrf !== false) headers['x-csrf-token'] = csrfTokenFor(token);
  return call(h.url, method, `/dashboard/api${path}`, { body: options.body, rawBody: options.rawBody, headers });
}

function multipart(bytes: Buffer, field = 'file') {
  const boundary = `----logo${randomBytes(6).toString('hex')}`;
  const rawBody = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="logo.png"\r\nContent-Type: image/png\r\n\r\n`),
    bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { rawBody, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

const adAccountOf = async (org: Org) => (await call(h.url, 'GET', '/v1/ad_account', { token: org.api_key })).body;

describe('website and card', () => {
  test('every member reads them; /v1 reads the website back; null removes it and the domain shows again', async () => {
    const org = await newOrg(h.db);
    const read = await asMember(org.session_token, 'GET', '/account');
    expect(read).toMatchObject({
      status: 200,
      body: {
        org_public_id: org.org_public_id,
        domain: 'example.com',
        ad_account: { id: org.ad_account_id, website: null, url: 'example.com', preview_url: null, logo_path: null },
        billing_configured: true,
        payment_method_id: 'pm_card_visa',
        can_edit: true,
      },
    });

    const set = await asMember(org.session_token, 'POST', '/account', { body: { url: 'https://shop.example/spring?ref=chat' } });
    expect(set).toMatchObject({
      status: 200,
      body: { ad_account: { website: 'https://shop.example/spring?ref=chat', url: 'https://shop.example/spring?ref=chat' } },
    });
    expect(await adAccountOf(org)).toMatchObject({ url: 'https://shop.example/spring?ref=chat' });

    const removed = await asMember(org.session_token, 'POST', '/account', { body: { url: null } });
    expect(removed.body.ad_account).toMatchObject({ website: null, url: 'example.com' });
    expect(await adAccountOf(org)).toMatchObject({ url: 'example.com' });
  });

  test("a new card replaces the default card (and the previous card's customer); campaign creates charge it", async () => {
    const org = await newOrg(h.db, { stripeCustomerId: 'cus_old' });
    const res = await asMember(org.session_token, 'POST', '/account', { body: { payment_method: 'pm_card_chargeDeclined' } });
    expect(res).toMatchObject({ status: 200, body: { payment_method_id: 'pm_card_chargeDeclined', billing_configured: true } });
    const stored = await h.db.organization.findUniqueOrThrow({ where: { publicId: org.org_public_id } });
    expect(stored).toMatchObject({ defaultPaymentMethodId: 'pm_card_chargeDeclined', stripeCustomerId: null });
    const created = await call(h.url, 'POST', '/v1/campaigns', {
      token: org.api_key,
      body: {
        name: `Declined ${randomBytes(3).toString('hex')}`,
        budget: { lifetime_spend_limit_micros: 5_000_000 },
        ad_groups: [{ context_hints: ['x'], ads: [{ creative: { type: 'poll', title: 'Pick', options: ['A', 'B'], target_url: 'https://a.example' } }] }],
      },
    });
    expect(created).toMatchObject({ status: 402, body: { error: { code: 'card_declined' } } });
  });

  test.each([
    ['a website without a scheme', { url: 'shop.example' }, 'invalid_value', 'url'],
    ['an ftp website', { url: 'ftp://shop.example/' }, 'invalid_value', 'url'],
    ['a javascript: website', { url: 'javascript:alert(1)' }, 'invalid_value', 'url'],
    ['a website without a host', { url: 'https://' }, 'invalid_value', 'url'],
    ['a website with user info', { url: 'https://user:pass@shop.example/' }, 'invalid_value', 'url'],
    ['a website over 2048 characters', { url: `https://shop.example/${'a'.repeat(2048)}` }, 'string_too_long', 'url'],
    ['a number as website', { url: 42 }, 'invalid_value', 'url'],
    ['a card id without pm_', { payment_method: 'card_visa' }, 'invalid_value', 'payment_method'],
    ['an empty card id', { payment_method: '' }, 'invalid_value', 'payment_method'],
    ['an unknown field', { website: 'https://shop.example/' }, 'invalid_value', 'website'],
  ])('%s is refused (%j: 400 %s on %s), nothing changes', async (_label, body, code, param) => {
    const org = await newOrg(h.db);
    const res = await asMember(org.session_token, 'POST', '/account', { body });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(errorBody(code, 'invalid_request_error', param));
    expect(await adAccountOf(org)).toMatchObject({ url: 'example.com' });
  });

  test('roles: a member reads without the card id and may not change anything; an admin may', async () => {
    const org = await newOrg(h.db);
    const organizationId = await organizationIdOf(h.db, org);
    const member = (await createMember(h.db, organizationId, 'member')).session_token;
    const admin = (await createMember(h.db, organizationId, 'admin')).session_token;
    expect(await asMember(member, 'GET', '/account')).toMatchObject({
      status: 200,
      body: { payment_method_id: null, billing_configured: true, can_edit: false },
    });
    for (const [path, options] of [
      ['/account', { body: { url: 'https://member.example/' } }],
      ['/account/logo', multipart((await uniquePng()).bytes)],
    ] as const) {
      expect(await asMember(member, 'POST', path, options)).toMatchObject({ status: 403, body: { error: { code: 'insufficient_role' } } });
    }
    expect(await asMember(admin, 'POST', '/account', { body: { url: 'https://admin.example/' } })).toMatchObject({ status: 200, body: { can_edit: true } });
    expect(await adAccountOf(org)).toMatchObject({ url: 'https://admin.example/' });
  });

  test("CSRF: a change without the session's token, or with another's, is refused and changes nothing", async () => {
    const org = await newOrg(h.db);
    const other = await newOrg(h.db);
    const forged = { 'x-csrf-token': csrfTokenFor(other.session_token) };
    for (const options of [{ csrf: false }, { csrf: false, headers: forged }]) {
      const website = await asMember(org.session_token, 'POST', '/account', { ...options, body: { url: 'https://csrf.example/' } });
      expect(website).toMatchObject({ status: 403, body: { error: { code: 'csrf_failed' } } });
      const logo = multipart((await uniquePng()).bytes);
      const upload = await asMember(org.session_token, 'POST', '/account/logo', {
        ...options,
        rawBody: logo.rawBody,
        headers: { ...logo.headers, ...options.headers },
      });
      expect(upload).toMatchObject({ status: 403, body: { error: { code: 'csrf_failed' } } });
    }
    const account = await adAccountOf(org);
    expect(account).toMatchObject({ url: 'example.com' });
    expect(account).not.toHaveProperty('preview_url');
    // Signed out, or an ak_ key as the cookie: not signed in.
    expect((await call(h.url, 'GET', '/dashboard/api/account')).status).toBe(401);
    expect((await call(h.url, 'GET', '/dashboard/api/account', { headers: { cookie: `dashboard_session=${org.api_key}` } })).status).toBe(401);
  });
});

describe('logo', () => {
  test('stored like an ad image and served at its public asset URL; a new logo replaces it and the old one is deleted', async () => {
    const org = await newOrg(h.db);
    const first = await uniquePng();
    const res = await asMember(org.session_token, 'POST', '/account/logo', multipart(first.bytes));
    expect(res.status).toBe(200);
    const expected = `${config.api.publicUrl}/assets/${first.sha256}.png`;
    expect(res.body.ad_account).toMatchObject({ preview_url: expected, logo_path: `/assets/${first.sha256}.png` });
    expect(await adAccountOf(org)).toMatchObject({ preview_url: expected });
    const served = await fetch(`${h.url}/assets/${first.sha256}.png`);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await served.arrayBuffer()).equals(first.bytes)).toBe(true);

    const oldAsset = (await h.db.adAccount.findUniqueOrThrow({ where: { id: org.ad_account_id } })).logoAssetId!;
    const second = await uniquePng();
    const replaced = await asMember(org.session_token, 'POST', '/account/logo', multipart(second.bytes));
    expect(replaced.body.ad_account.preview_url).toBe(`${config.api.publicUrl}/assets/${second.sha256}.png`);
    expect(await h.db.asset.count({ where: { id: oldAsset } })).toBe(0);
    expect(await createAssetStore().exists(`assets/${first.sha256}.png`)).toBe(false);
  });

  test.each([
    ['text', 'invalid_file', () => Promise.resolve(Buffer.from('not an image at all'))],
    [
      'a GIF',
      'unsupported_mimetype',
      () =>
        sharp({ create: { width: 4, height: 4, channels: 3, background: '#123456' } })
          .gif()
          .toBuffer(),
    ],
    ['nothing', 'invalid_file', () => Promise.resolve(Buffer.alloc(0))],
  ])('%s is refused with %s on file; the logo stays', async (_label, code, bytes) => {
    const org = await newOrg(h.db);
    const res = await asMember(org.session_token, 'POST', '/account/logo', multipart(await bytes()));
    expect(res).toMatchObject({ status: 400, body: { error: { code, param: 'file' } } });
    expect(await adAccountOf(org)).not.toHaveProperty('preview_url');
  });

  test('the upload is multipart with one `file` part: JSON is 415, another part name 400', async () => {
    const org = await newOrg(h.db);
    const json = await asMember(org.session_token, 'POST', '/account/logo', { body: { image_url: 'https://cdn.example/logo.png' } });
    expect(json).toMatchObject({ status: 415, body: { error: { code: 'unsupported_media_type' } } });
    const misnamed = await asMember(org.session_token, 'POST', '/account/logo', multipart((await uniquePng()).bytes, 'logo'));
    expect(misnamed).toMatchObject({ status: 400, body: { error: { code: 'invalid_value', param: 'file' } } });
    // The website operation takes JSON only.
    const upload = multipart((await uniquePng()).bytes);
    expect(await asMember(org.session_token, 'POST', '/account', upload)).toMatchObject({ status: 415 });
  });
});

describe('the auction', () => {
  let auction: AuctionHarness;
  const live: string[] = [];
  beforeAll(async () => {
    auction = await startAuction();
  });
  afterAll(async () => {
    await h.db.campaign.updateMany({ where: { id: { in: live } }, data: { status: 'paused' } });
    await auction?.close();
  });

  test('a card without an image serves in a text placement within seconds of the logo upload', async () => {
    const org = await newOrg(h.db);
    const word = `lg${randomBytes(4).toString('hex')}`;
    const tree = await insertTree(h.db, org, {
      campaign: { status: 'active', reviewStatus: 'approved', startTime: new Date(Date.now() - 3_600_000), targetCountries: ['NR'] },
      adGroup: { contextHints: [word] },
    });
    live.push(tree.campaign.id);
    const request = contextualRequest({
      country_code: 'NR',
      messages: [
        { role: 'user', content: `Tell me about ${word} please` },
        { role: 'assistant', content: `Sure, here is what I know about ${word}.` },
      ],
    });
    await until(() => auction.auction.deps.catalog.ads.some((a) => a.adId === tree.ad.id), 'the ad in the index');
    const before = await adRequest(auction, request);
    expect(before).toMatchObject({ status: 200, body: { ad: null } }); // no image, no logo: nothing to show

    const uploaded = await asMember(org.session_token, 'POST', '/account/logo', multipart((await uniquePng()).bytes));
    const logoUrl = uploaded.body.ad_account.preview_url as string;
    let served: any = null;
    await until(
      async () => {
        served = (await adRequest(auction, request)).body.ad;
        return served !== null;
      },
      'the card served with the logo',
      10_000,
    );
    expect(served).toMatchObject({ format: 'sponsored_message', placement: 'text', headline: 'Run faster', logo_url: logoUrl });
  });
});
