/**
 * The dashboard in real headless Chromium against an in-process api over the
 * real PostgreSQL, ClickHouse and Temporal (worker from the global setup).
 * Screenshots of every page land in test-output/screenshots/.
 */
import type { Browser, Page } from 'playwright-core';
import { loadIndexedAds } from '../../auction/inhouse/ad-index';
import { createLoginLink, memberForLoginLink } from '../../domain/dashboard/sessions';
import { hashSecret } from '../../lib/secrets';
import { createAssetStore } from '../../lib/asset-store';
import { adctl } from '../support/cli';
import { insertCampaign, insertTree, insertUpload, organizationIdOf, uniquePng } from '../support/fixtures';
import { call, errorBody, newOrg, useHarness } from '../support/harness';
import { imageLoaded } from '../support/image-loaded';
import { clickhouse, insertRows, queryString, row } from '../insights/support';
import { csrfOf, launchBrowser, linkOn, newSession, PHONE, screenshot, signIn, waitReady, type Session } from './browser';

// A browser, the review workflow and ClickHouse in one test: roomy on a loaded shared machine.
jest.setTimeout(120_000);

const h = useHarness();
let browser: Browser;
const sessions: Session[] = [];

beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  for (const s of sessions) expect(s.outside).toEqual([]); // browser traffic stayed on 127.0.0.1
  await browser?.close();
});

async function session(viewport?: { width: number; height: number }): Promise<Session> {
  const s = await newSession(browser, viewport);
  sessions.push(s);
  return s;
}

type Org = Awaited<ReturnType<typeof newOrg>>;

/** A signed-in page of a member of `org` with `role` (the link minted in-process; the adctl test covers the CLI). */
async function memberPage(org: Org, role: 'owner' | 'admin' | 'member' = 'owner', viewport?: { width: number; height: number }): Promise<Page> {
  const memberId = await memberForLoginLink(h.db, await organizationIdOf(h.db, org), role);
  const { token } = await createLoginLink(h.db, { memberId });
  const { page } = await session(viewport);
  await signIn(page, `${h.url}/dashboard/login?token=${token}`);
  return page;
}

async function staffPage(): Promise<Page> {
  const { token } = await createLoginLink(h.db, { staffName: 'Test reviewer' });
  const { page } = await session();
  await signIn(page, `${h.url}/dashboard/login?token=${token}`);
  return page;
}

/** A request from the page's own browser context (its cookies), optionally with the page's CSRF token. */
async function fromPage(page: Page, method: string, path: string, options: { csrf?: string | null; body?: unknown } = {}) {
  const headers: Record<string, string> = {};
  if (options.csrf) headers['x-csrf-token'] = options.csrf;
  const res = await page.request.fetch(`${h.url}${path}`, { method, headers, data: options.body, maxRedirects: 0 });
  return { status: res.status(), body: await res.json().catch(() => null) };
}

/** Form controls without a label and buttons or links without an accessible name (none expected on any page). */
async function unnamedControls(page: Page): Promise<string[]> {
  return page
    .locator('input:not([type=hidden]), select, textarea, button, a')
    .evaluateAll((elements: any[]) =>
      elements
        .filter((el) =>
          ['INPUT', 'SELECT', 'TEXTAREA'].includes(el.tagName)
            ? el.labels.length === 0 && !el.getAttribute('aria-label')
            : !(el.getAttribute('aria-label') || el.textContent.trim()),
        )
        .map((el) => el.outerHTML.slice(0, 80)),
    );
}

describe('sign-in', () => {
  test('adctl login-link signs in once: an HttpOnly SameSite=Strict session cookie; sign-out ends the session everywhere', async () => {
    const org = await newOrg(h.db);
    const printed = await adctl('login-link', '--org', org.org_public_id, '--role', 'admin');
    expect(printed.code).toBe(0);
    const { url, expires_at } = JSON.parse(printed.stdout);
    expect(url).toMatch(/\/dashboard\/login\?token=dl_[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(expires_at)).toBeGreaterThan(Date.now());

    const { page, context } = await session();
    await page.goto(linkOn(h.url, url));
    await screenshot(page, 'sign-in');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${h.url}/dashboard/`);
    await waitReady(page);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Campaigns');
    await expect(page.locator('header .who').textContent()).resolves.toContain('admin');

    const [cookie] = await context.cookies();
    expect(cookie).toMatchObject({ name: 'dashboard_session', httpOnly: true, sameSite: 'Strict', secure: false, path: '/dashboard' });
    // The cookie holds the same kind of session the platform surface accepts (only its hash is stored).
    expect(cookie.value).toMatch(/^sess_/);
    expect(await h.db.dashboardSession.count({ where: { tokenHash: hashSecret(cookie.value) } })).toBe(1);
    const platform = await call(h.url, 'GET', `/api/organizations/${org.org_public_id}/api-keys/`, { token: cookie.value });
    expect(platform.status).toBe(200);

    // The link works once.
    const again = await (await session()).page.goto(linkOn(h.url, url));
    expect(again?.status()).toBe(200);
    const reused = await fetch(`${h.url}/dashboard/login`, {
      method: 'POST',
      body: new URLSearchParams({ token: new URL(url).searchParams.get('token')! }),
      redirect: 'manual',
    });
    expect(reused.status).toBe(401);
    expect(reused.headers.get('set-cookie')).toBeNull();

    // Sign-out: the session is gone, as a cookie and as a Bearer token.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${h.url}/dashboard/login`);
    expect(await h.db.dashboardSession.count({ where: { tokenHash: hashSecret(cookie.value) } })).toBe(0);
    expect((await call(h.url, 'GET', `/api/organizations/${org.org_public_id}/api-keys/`, { token: cookie.value })).status).toBe(401);
    await page.goto(`${h.url}/dashboard/`);
    expect(page.url()).toBe(`${h.url}/dashboard/login`);
  });

  test('adctl login-link --staff signs a reviewer in to the review queue; bad arguments are usage errors', async () => {
    const printed = await adctl('login-link', '--staff', '--name', 'Ann');
    expect(printed.code).toBe(0);
    const { page } = await session();
    await signIn(page, linkOn(h.url, JSON.parse(printed.stdout).url));
    expect(page.url()).toBe(`${h.url}/dashboard/review`);
    await expect(page.locator('header .who').textContent()).resolves.toBe('Reviewer Ann');
    expect((await adctl('login-link', '--staff', '--org', '00000000-0000-4000-8000-000000000000')).code).toBe(2);
    expect((await adctl('login-link', '--org', '00000000-0000-4000-8000-000000000000', '--role', 'root')).code).toBe(2);
    expect((await adctl('login-link')).code).toBe(2);
  });

  test('a sign-in posted from another site is refused (login CSRF) and leaves the link usable', async () => {
    const org = await newOrg(h.db);
    const { token } = await createLoginLink(h.db, { memberId: await memberForLoginLink(h.db, await organizationIdOf(h.db, org), 'owner') });
    const attempts: Record<string, string>[] = [{ origin: 'https://evil.example' }, { 'sec-fetch-site': 'cross-site', origin: 'null' }];
    for (const headers of attempts) {
      const foreign = await fetch(`${h.url}/dashboard/login`, { method: 'POST', headers, body: new URLSearchParams({ token }), redirect: 'manual' });
      expect(foreign.status).toBe(403);
      expect(foreign.headers.get('set-cookie')).toBeNull();
    }
    const { page } = await session();
    await signIn(page, `${h.url}/dashboard/login?token=${token}`);
  });

  test('an ak_ key never signs in: not as a link token, not as a cookie', async () => {
    const org = await newOrg(h.db);
    const asLink = await fetch(`${h.url}/dashboard/login`, { method: 'POST', body: new URLSearchParams({ token: org.api_key }), redirect: 'manual' });
    expect(asLink.status).toBe(401);
    expect(asLink.headers.get('set-cookie')).toBeNull();

    const asCookie = { headers: { cookie: `dashboard_session=${org.api_key}` }, redirect: 'manual' as const };
    const page = await fetch(`${h.url}/dashboard/`, asCookie);
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe('/dashboard/login');
    const json = await fetch(`${h.url}/dashboard/api/campaigns`, asCookie);
    expect(json.status).toBe(401);
    expect(((await json.json()) as { error: { code: string } }).error.code).toBe('auth_required');
  });
});

describe('reviewer', () => {
  test('approves a campaign from the queue (the review workflow records it), and once activated it serves', async () => {
    const org = await newOrg(h.db);
    const organizationId = await organizationIdOf(h.db, org);
    const fileId = await insertUpload(h.db, createAssetStore(), organizationId, (await uniquePng()).bytes);
    const created = await call(h.url, 'POST', '/v1/campaigns', {
      token: org.api_key,
      body: {
        name: `Dashboard review ${Date.now()}`,
        budget: { lifetime_spend_limit_micros: 25_000_000 },
        ad_groups: [
          {
            name: 'Cards',
            context_hints: ['running'],
            ads: [{ creative: { type: 'chat_card', title: 'Run faster', body: 'Light shoes', cta: 'Shop', file_id: fileId } }],
          },
          {
            name: 'Polls',
            context_hints: ['running'],
            ads: [
              { creative: { type: 'poll', title: 'How far do you run?', options: ['5 km', '10 km', 'Marathon'], target_url: 'https://shoes.example/poll' } },
            ],
          },
        ],
      },
    });
    expect(created.status).toBe(201);
    const campaignId = created.body.id;

    const page = await staffPage();
    await page.goto(`${h.url}/dashboard/review?campaign=${campaignId}`);
    await waitReady(page);
    const card = page.locator(`article[data-campaign-id="${campaignId}"]`);
    await expect(card.getByRole('heading', { level: 2 }).textContent()).resolves.toBe(created.body.name);
    // Each ad as the chat host shows it: the card with its image, the poll with its options; the landing URLs.
    const image = card.locator('figure.card img');
    await image.scrollIntoViewIfNeeded();
    await expect(image.evaluate(imageLoaded)).resolves.toBe(true);
    await expect(card.locator('figure.poll li').allTextContents()).resolves.toEqual(['5 km', '10 km', 'Marathon']);
    await expect(card.locator('figure.poll .landing').textContent()).resolves.toContain('https://shoes.example/poll');
    await expect(card.locator('figure.card .landing').textContent()).resolves.toContain('example.com');
    await screenshot(page, 'review-queue');
    expect(await unnamedControls(page)).toEqual([]);

    await card.getByRole('button', { name: 'Approve' }).click();
    await page.waitForSelector(`article[data-campaign-id="${campaignId}"][data-outcome="approved"]`);
    expect(await h.db.campaign.findUniqueOrThrow({ where: { id: campaignId } })).toMatchObject({ reviewStatus: 'approved', status: 'paused' });
    // A verdict twice is refused.
    const twice = await fromPage(page, 'POST', `/dashboard/api/review/campaigns/${campaignId}/reject`, { csrf: await csrfOf(page), body: { reason: 'late' } });
    expect(twice).toMatchObject({ status: 409, body: { error: { code: 'review_closed' } } });

    // The advertiser activates it on the campaign page; the auction's index now holds its ads.
    const owner = await memberPage(org);
    await owner.goto(`${h.url}/dashboard/campaigns/${campaignId}`);
    await waitReady(owner);
    await owner.getByRole('button', { name: 'Activate' }).click();
    await owner.waitForSelector('.badge-active');
    const ads = await h.db.ad.findMany({ where: { adGroup: { campaignId } }, select: { id: true } });
    const indexed = new Set((await loadIndexedAds(h.db)).map((ad) => ad.adId));
    expect(ads.length).toBe(2);
    for (const ad of ads) expect(indexed.has(ad.id)).toBe(true);
  });

  test('a rejection needs a reason, and reaches the campaign', async () => {
    const org = await newOrg(h.db);
    const created = await call(h.url, 'POST', '/v1/campaigns', {
      token: org.api_key,
      body: {
        name: `Dashboard reject ${Date.now()}`,
        budget: { lifetime_spend_limit_micros: 25_000_000 },
        ad_groups: [{ context_hints: ['x'], ads: [{ creative: { type: 'poll', title: 'Pick one', options: ['A', 'B'], target_url: 'https://a.example' } }] }],
      },
    });
    expect(created.status).toBe(201);
    const page = await staffPage();
    await page.goto(`${h.url}/dashboard/review?campaign=${created.body.id}`);
    await waitReady(page);
    const card = page.locator(`article[data-campaign-id="${created.body.id}"]`);
    await card.getByRole('button', { name: 'Reject' }).click();
    await expect(card.getByRole('alert').textContent()).resolves.toContain('(required)');
    await card.getByLabel('Reason (required to reject)').fill('Misleading claims');
    await card.getByRole('button', { name: 'Reject' }).click();
    await page.waitForSelector(`article[data-campaign-id="${created.body.id}"][data-outcome="rejected"]`);
    expect(await h.db.campaign.findUniqueOrThrow({ where: { id: created.body.id } })).toMatchObject({
      reviewStatus: 'rejected',
      reviewReason: 'Misleading claims',
    });

    // A campaign in review without a review workflow (written straight into the database) is refused cleanly.
    const orphan = await insertTree(h.db, org);
    const verdict = await fromPage(page, 'POST', `/dashboard/api/review/campaigns/${orphan.campaign.id}/approve`, { csrf: await csrfOf(page), body: {} });
    expect(verdict).toMatchObject({ status: 409, body: { error: { code: 'review_closed' } } });
    expect((await h.db.campaign.findUniqueOrThrow({ where: { id: orphan.campaign.id } })).reviewStatus).toBe('in_review');
  });
});

describe('reviewer blocks', () => {
  test('a live campaign: a reason is required, it stops serving at once, and its advertiser sees it blocked', async () => {
    const org = await newOrg(h.db);
    const { campaign, ad } = await insertTree(h.db, org, { campaign: { reviewStatus: 'approved', status: 'active' } });
    expect((await loadIndexedAds(h.db)).some((indexed) => indexed.adId === ad.id)).toBe(true);

    const page = await staffPage();
    await page.getByRole('link', { name: 'Live campaigns' }).click();
    await waitReady(page);
    await page.goto(`${h.url}/dashboard/live?campaign=${campaign.id}`);
    await waitReady(page);
    const card = page.locator(`article[data-campaign-id="${campaign.id}"]`);
    await card.getByRole('button', { name: 'Block' }).click();
    await expect(card.getByRole('alert').textContent()).resolves.toContain('(required)');
    expect((await h.db.campaign.findUniqueOrThrow({ where: { id: campaign.id } })).lifecycleState).toBeNull();
    await card.getByLabel('Reason (required to block)').fill('Counterfeit goods');
    await screenshot(page, 'live-campaigns');
    await card.getByRole('button', { name: 'Block' }).click();
    await page.waitForSelector(`article[data-campaign-id="${campaign.id}"][data-outcome="blocked"]`);
    expect(await h.db.campaign.findUniqueOrThrow({ where: { id: campaign.id } })).toMatchObject({
      lifecycleState: 'blocked',
      lifecycleReason: 'Counterfeit goods',
    });
    expect((await loadIndexedAds(h.db)).some((indexed) => indexed.adId === ad.id)).toBe(false);

    // Off the live list; the advertiser sees it paused (as /v1 reads it) and blocked, with the reason.
    await page.reload();
    await waitReady(page);
    expect(await page.locator('article').count()).toBe(0);
    const owner = await memberPage(org);
    await expect(owner.locator(`tr[data-campaign-id="${campaign.id}"] td`).first().textContent()).resolves.toBe('paused blocked');
    await owner.goto(`${h.url}/dashboard/campaigns/${campaign.id}`);
    await waitReady(owner);
    await expect(owner.locator('.lifecycle').textContent()).resolves.toBe('This campaign is blocked: Counterfeit goods');
    await owner.getByRole('button', { name: 'Activate' }).click();
    await expect(owner.locator('.action-status [role="alert"]').textContent()).resolves.toContain('(campaign_terminal)');
  });
});

describe('advertiser', () => {
  test('the campaign chart shows the same totals as the insights endpoint; the overview its last 7 days and spend', async () => {
    const org = await newOrg(h.db);
    const { campaign, adGroup, ad } = await insertTree(h.db, org, {
      campaign: { reviewStatus: 'approved', status: 'active', lifetimeSpendLimitMicros: 50_000_000n },
    });
    const path = { organizationId: campaign.organizationId, adAccountId: campaign.adAccountId, campaignId: campaign.id, adGroupId: adGroup.id, adId: ad.id };
    const day = 86_400_000;
    const now = Date.now();
    const rows = [
      ...Array.from({ length: 12 }, (_, i) => row(path, new Date(now - (i % 6) * day - 3_600_000), { spend_micros: 2_500, country: i % 2 ? 'DE' : 'US' })),
      ...Array.from({ length: 3 }, (_, i) => row(path, new Date(now - i * day - 3_600_000), { event_type: 'click', impressions: 0, clicks: 1 })),
      row(path, new Date(now - 20 * day), { impressions: 5, spend_micros: 10_000 }), // in the 30-day chart, not in the 7-day overview
    ];
    const ch = clickhouse();
    try {
      await insertRows(ch, rows);
    } finally {
      await ch.close();
    }
    await h.db.campaignSpend.create({ data: { campaignId: campaign.id, spentMicros: 1_234_000n } });

    const page = await memberPage(org);
    const overview = page.locator(`tr[data-campaign-id="${campaign.id}"]`);
    // The delivery badge: an approved, active campaign that starts in two days, but its card has no image and the account no logo.
    await expect(overview.locator('td').allTextContents()).resolves.toEqual(['active', 'not delivering', 'approved', '$1.234 / $50.00', '12', '3', '25.00%']);
    await screenshot(page, 'campaigns');

    await page.getByRole('link', { name: campaign.name }).click();
    await page.waitForSelector('.chart[data-loaded="true"]');
    const expected = await call(
      h.url,
      'GET',
      `/v1/campaigns/${campaign.id}/insights${queryString({ limit: '2000', 'fields[]': ['impressions', 'clicks', 'spend'] })}`,
      { token: org.api_key },
    );
    expect(expected.status).toBe(200);
    const sum = (key: string) => expected.body.data.reduce((total: number, r: Record<string, number>) => total + r[key], 0);
    expect(sum('impressions')).toBe(17);
    const totals = async () =>
      Object.fromEntries(await page.locator('.totals dd').evaluateAll((dds) => dds.map((dd) => [dd.getAttribute('data-total'), dd.textContent])));
    await expect(totals()).resolves.toEqual({
      impressions: String(sum('impressions')),
      clicks: String(sum('clicks')),
      spend: `$${sum('spend').toFixed(2)}`,
      ctr: `${((sum('clicks') / sum('impressions')) * 100).toFixed(2)}%`,
    });
    await expect(page.locator('canvas').getAttribute('aria-label')).resolves.toBe('impressions per day');
    await screenshot(page, 'campaign');
    expect(await unnamedControls(page)).toEqual([]);

    // Hourly: the trailing 24 hours, again the endpoint's totals.
    await page.getByLabel('Granularity').selectOption('hourly');
    await page.locator('canvas[aria-label="impressions per hour"]').waitFor();
    const hourly = await call(
      h.url,
      'GET',
      `/v1/campaigns/${campaign.id}/insights${queryString({ time_granularity: 'hourly', limit: '2000', 'fields[]': ['impressions', 'clicks'] })}`,
      { token: org.api_key },
    );
    const hourlySum = (key: string) => hourly.body.data.reduce((total: number, r: Record<string, number>) => total + r[key], 0);
    expect(hourlySum('impressions')).toBe(2); // one day's rows, an hour ago
    await expect(totals()).resolves.toMatchObject({ impressions: String(hourlySum('impressions')), clicks: String(hourlySum('clicks')) });
    await page.getByLabel('Granularity').selectOption('daily');
    await page.locator('canvas[aria-label="impressions per day"]').waitFor();

    // Split by country (one ad group): the same totals, one series per country.
    await page.getByLabel('Scope').selectOption(adGroup.id);
    await page.getByLabel('Split by').selectOption('country');
    await page.locator('canvas[aria-label="impressions per day by country"]').waitFor();
    await expect(totals()).resolves.toMatchObject({ impressions: '17', clicks: '3' });

    // A refused action shows the spec's error: an active campaign cannot be activated into archive twice.
    await page.getByRole('button', { name: 'Archive' }).click();
    await page.waitForSelector('.badge-archived');
    await page.getByRole('button', { name: 'Pause' }).click();
    await expect(page.locator('.action-status [role="alert"]').textContent()).resolves.toContain('(campaign_not_running)');
  });

  test('Test your hints: an ad group scored against a typed conversation, other hints tried without saving them', async () => {
    const org = await newOrg(h.db);
    const { campaign, adGroup } = await insertTree(h.db, org, {
      campaign: { reviewStatus: 'approved', status: 'paused' },
      adGroup: { contextHints: ['sourdough bread', 'sourdough starter'] },
      ad: { title: 'Sourdough starter kit', body: 'Bake crusty loaves at home' },
    });
    const page = await memberPage(org);
    await page.goto(`${h.url}/dashboard/campaigns/${campaign.id}`);
    await page.waitForSelector('.chart[data-loaded="true"]');
    const result = page.locator('.relevance-result');
    const score = async () => {
      await page.getByRole('button', { name: 'Score' }).click();
      await result.locator('p').first().waitFor();
      return result.textContent();
    };
    // The api's own answer is what the page shows.
    const conversation = { messages: [{ role: 'user', content: 'My sourdough starter smells of acetone and my bread comes out flat. What do I do?' }] };
    const expected = await call(h.url, 'POST', `/v1/ad_groups/${adGroup.id}/test_relevance`, { token: org.api_key, body: conversation });
    expect(expected.status).toBe(200);
    expect(expected.body.relevant).toBe(true);
    await page.getByLabel('The user says').fill(conversation.messages[0].content);
    await expect(score()).resolves.toContain(`Relevance ${expected.body.relevance.toFixed(2)}`);
    await expect(result.textContent()).resolves.toContain('its ads could bid for this conversation');
    await screenshot(page, 'campaign-relevance-test');

    // Other hints, tried: scored, and the ad group keeps its own.
    await page.getByLabel('Try other hints').fill('kayak rental\nsea kayaking');
    await expect(score()).resolves.toContain('not relevant enough to bid');
    await expect(result.textContent()).resolves.toContain('Hints scored: kayak rental, sea kayaking');
    expect((await h.db.adGroup.findUniqueOrThrow({ where: { id: adGroup.id } })).contextHints).toEqual(['sourdough bread', 'sourdough starter']);

    // The endpoint behind it: the session's CSRF token, the spec's errors, no other organization's ad group.
    const csrf = await csrfOf(page);
    const path = (id: string) => `/dashboard/api/ad-groups/${id}/test-relevance`;
    expect(await fromPage(page, 'POST', path(adGroup.id), { csrf, body: { messages: [] } })).toEqual({
      status: 400,
      body: errorBody('required', 'invalid_request_error', 'messages'),
    });
    const other = await insertTree(h.db, await newOrg(h.db), {});
    expect(await fromPage(page, 'POST', path(other.adGroup.id), { csrf, body: conversation })).toMatchObject({
      status: 404,
      body: { error: { code: 'not_found' } },
    });
    expect((await fromPage(page, 'POST', path(adGroup.id), { body: conversation })).status).toBe(403);
    expect(await unnamedControls(page)).toEqual([]);
  });

  test('usable on a phone-sized viewport', async () => {
    const org = await newOrg(h.db);
    await insertTree(h.db, org, { campaign: { reviewStatus: 'approved', status: 'paused' } });
    const page = await memberPage(org, 'owner', PHONE);
    // No page is wider than the screen: each campaign is a card, the chart fits.
    const overflow = () => page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    await expect(overflow()).resolves.toBe(0);
    await screenshot(page, 'campaigns-phone');
    await page.locator('tbody a').click();
    await page.waitForSelector('.chart[data-loaded="true"]');
    await expect(overflow()).resolves.toBe(0);
    await screenshot(page, 'campaign-phone');
  });
});

describe('activity', () => {
  test("any member reads the organization's audit log: who changed what, before and after", async () => {
    const org = await newOrg(h.db);
    const campaign = await insertCampaign(h.db, org, { lifetimeSpendLimitMicros: 25_000_000n });
    const changed = await call(h.url, 'POST', `/v1/campaigns/${campaign.id}`, {
      token: org.api_key,
      body: { budget: { lifetime_spend_limit_micros: 40_000_000 } },
    });
    expect(changed.status).toBe(200);
    const page = await memberPage(org, 'member');
    await page.getByRole('link', { name: 'Activity' }).click();
    await page.waitForURL(`${h.url}/dashboard/activity`);
    await waitReady(page);
    const entry = await h.db.auditEntry.findFirstOrThrow({ where: { entityId: campaign.id } });
    const row = page.locator(`tr[data-entry-id="${entry.id}"]`);
    await expect(row.textContent()).resolves.toMatch(/campaign .*updated.*API key .*lifetime_spend_limit_micros: 25000000 → 40000000/);
    // Newest first: the budget change heads the list.
    await expect(page.locator('tbody tr').first().getAttribute('data-entry-id')).resolves.toBe(entry.id);
    expect(await unnamedControls(page)).toEqual([]);
    await screenshot(page, 'activity');
  });
});

describe('API keys', () => {
  test('rotation shows the new secret once; the old key works through its grace window; revoke ends it', async () => {
    const org = await newOrg(h.db);
    const page = await memberPage(org);
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.waitForURL(`${h.url}/dashboard/keys`);
    await waitReady(page);
    await expect(page.locator('tbody tr').count()).resolves.toBe(1);

    expect(await unnamedControls(page)).toEqual([]);
    // Keyboard only: the name field, then Enter submits the form.
    await page.getByLabel('Name (optional)').focus();
    await page.keyboard.type('ci');
    await page.keyboard.press('Enter');
    await page.locator('[data-secret]').waitFor();
    const secret = await page.locator('[data-secret]').textContent();
    expect(secret).toMatch(/^ak_[A-Za-z0-9_-]{43}$/);
    await expect(page.locator('.secret').textContent()).resolves.toContain('stays valid until');
    await screenshot(page, 'api-keys');
    expect((await call(h.url, 'GET', '/v1/ad_account', { token: secret! })).status).toBe(200);
    expect((await call(h.url, 'GET', '/v1/ad_account', { token: org.api_key })).status).toBe(200); // grace window

    // Shown once: a reload lists the keys, never the secret.
    await page.reload();
    await waitReady(page);
    expect(await page.locator('[data-secret]').count()).toBe(0);
    expect(await page.content()).not.toContain(secret!);
    await expect(page.locator('tbody tr').count()).resolves.toBe(2);

    const oldKey = await h.db.apiKey.findFirstOrThrow({ where: { secretHash: hashSecret(org.api_key) } });
    await page
      .locator(`tr[data-key-id="${oldKey.publicId}"]`)
      .getByRole('button', { name: /Revoke/ })
      .click();
    await page.getByText(/revoked\./).waitFor();
    expect((await call(h.url, 'GET', '/v1/ad_account', { token: org.api_key })).status).toBe(401);
    expect((await call(h.url, 'GET', '/v1/ad_account', { token: secret! })).status).toBe(200);
  });

  test('a member cannot manage keys', async () => {
    const org = await newOrg(h.db);
    const page = await memberPage(org, 'member');
    expect(await page.getByRole('link', { name: 'API keys' }).count()).toBe(0);
    await page.goto(`${h.url}/dashboard/keys`);
    await waitReady(page);
    await expect(page.getByRole('alert').textContent()).resolves.toContain('(insufficient_role)');
    await screenshot(page, 'api-keys-member');
    const csrf = await csrfOf(page);
    const before = await h.db.apiKey.count({ where: { organizationId: await organizationIdOf(h.db, org) } });
    expect(await fromPage(page, 'POST', '/dashboard/api/api-keys', { csrf, body: { name: 'x' } })).toMatchObject({
      status: 403,
      body: { error: { code: 'insufficient_role' } },
    });
    expect(await fromPage(page, 'GET', '/dashboard/api/api-keys')).toMatchObject({ status: 403 });
    expect(await h.db.apiKey.count({ where: { organizationId: await organizationIdOf(h.db, org) } })).toBe(before);
  });
});

describe('security', () => {
  test('CSRF: a state change without the session token, or with another, is refused and changes nothing', async () => {
    const org = await newOrg(h.db);
    const { campaign } = await insertTree(h.db, org, { campaign: { reviewStatus: 'approved', status: 'active' } });
    const page = await memberPage(org);
    const other = await memberPage(await newOrg(h.db));
    const pause = `/dashboard/api/campaigns/${campaign.id}/pause`;
    for (const csrf of [null, 'forged', await csrfOf(other)]) {
      expect(await fromPage(page, 'POST', pause, { csrf })).toMatchObject({ status: 403, body: { error: { code: 'csrf_failed' } } });
    }
    expect(await fromPage(page, 'POST', '/dashboard/api/api-keys', { body: { name: 'x' } })).toMatchObject({
      status: 403,
      body: { error: { code: 'csrf_failed' } },
    });
    expect(await fromPage(page, 'POST', '/dashboard/logout')).toMatchObject({ status: 403 });
    expect((await h.db.campaign.findUniqueOrThrow({ where: { id: campaign.id } })).status).toBe('active');
    // With its own token the same request goes through.
    expect(await fromPage(page, 'POST', pause, { csrf: await csrfOf(page) })).toMatchObject({ status: 200, body: { campaign: { status: 'paused' } } });
  });

  test("an organization never sees another's campaigns, insights or keys; staff see no organization's data", async () => {
    const mine = await newOrg(h.db);
    const theirs = await newOrg(h.db);
    const own = await insertTree(h.db, mine, { campaign: { reviewStatus: 'approved', status: 'active' } });
    const foreign = await insertTree(h.db, theirs, { campaign: { reviewStatus: 'approved', status: 'active' } });
    const page = await memberPage(mine);
    const listed = await page.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-campaign-id')));
    expect(listed).toEqual([own.campaign.id]);

    for (const path of [
      `/dashboard/api/campaigns/${foreign.campaign.id}`,
      `/dashboard/api/campaigns/${foreign.campaign.id}/insights`,
      `/dashboard/api/ad-groups/${foreign.adGroup.id}/insights`,
    ]) {
      expect(await fromPage(page, 'GET', path)).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    }
    expect(await fromPage(page, 'POST', `/dashboard/api/campaigns/${foreign.campaign.id}/pause`, { csrf: await csrfOf(page) })).toMatchObject({ status: 404 });
    expect((await h.db.campaign.findUniqueOrThrow({ where: { id: foreign.campaign.id } })).status).toBe('active');
    const theirKey = await h.db.apiKey.findFirstOrThrow({ where: { secretHash: hashSecret(theirs.api_key) } });
    expect(await fromPage(page, 'DELETE', `/dashboard/api/api-keys/${theirKey.publicId}`, { csrf: await csrfOf(page) })).toMatchObject({ status: 404 });
    expect((await call(h.url, 'GET', '/v1/ad_account', { token: theirs.api_key })).status).toBe(200);

    await page.goto(`${h.url}/dashboard/campaigns/${foreign.campaign.id}`);
    await waitReady(page);
    await expect(page.getByRole('alert').textContent()).resolves.toContain('(not_found)');
    expect(await page.content()).not.toContain(foreign.campaign.name);

    // Members are no reviewers; reviewers read no organization's campaigns.
    expect(await fromPage(page, 'GET', '/dashboard/api/review/campaigns')).toMatchObject({ status: 403, body: { error: { code: 'insufficient_role' } } });
    const staff = await staffPage();
    expect(await fromPage(staff, 'GET', `/dashboard/api/campaigns/${own.campaign.id}`)).toMatchObject({ status: 403 });
    expect(await fromPage(staff, 'GET', '/dashboard/api/api-keys')).toMatchObject({ status: 403 });
  });
});
