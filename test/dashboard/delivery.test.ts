/**
 * Delivery in the dashboard, in real headless Chromium against an in-process
 * api and a real auction: the badge on every campaign, the campaign page's
 * issues with what to do about each, the Account page making a card serve, the
 * reviewer's blocking issues beside Approve, and the live list showing what
 * serves beside a pending edit. Screenshots land in test-output/screenshots/.
 */
import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { approveCampaignCreatives } from '../../domain/creatives/review';
import { createLoginLink, memberForLoginLink } from '../../domain/dashboard/sessions';
import { castVote } from '../../domain/polls/service';
import { config } from '../../lib/config';
import { insertAd, insertAdGroup, insertTree, organizationIdOf, uniquePng } from '../support/fixtures';
import { call, newOrg, startHarness, type Harness } from '../support/harness';
import { imageLoaded } from '../support/image-loaded';
import { until } from '../support/wait';
import { adRequest, contextualRequest, startAuction, type AuctionHarness } from '../auction/support';
import { launchBrowser, linkOn, newSession, screenshot, signIn, waitReady, type Session } from './browser';

// A browser, an auction, the review workflows and ClickHouse in one file: roomy on a loaded shared machine.
jest.setTimeout(120_000);

let h: Harness;
let auction: AuctionHarness;
let browser: Browser;
const sessions: Session[] = [];
/** Campaigns this file made servable: paused again afterwards, so other files' auctions never see them. */
const live: string[] = [];

beforeAll(async () => {
  h = await startHarness();
  auction = await startAuction();
  browser = await launchBrowser();
});
afterAll(async () => {
  for (const s of sessions) expect(s.outside).toEqual([]); // browser traffic stayed on 127.0.0.1
  await h?.db.campaign.updateMany({ where: { id: { in: live } }, data: { status: 'paused' } });
  await browser?.close();
  await auction?.close();
  await h?.close();
});

type Org = Awaited<ReturnType<typeof newOrg>>;
const HOUR = 3_600_000;
const serving = { status: 'active', reviewStatus: 'approved', startTime: new Date(Date.now() - HOUR) } as const;
const word = () => `dl${randomBytes(4).toString('hex')}`;

async function signedIn(link: { memberId: string } | { staffName: string }): Promise<Page> {
  const { token } = await createLoginLink(h.db, link);
  const s = await newSession(browser);
  sessions.push(s);
  await signIn(s.page, `${h.url}/dashboard/login?token=${token}`);
  return s.page;
}
const memberPage = async (org: Org, role: 'owner' | 'admin' | 'member' = 'owner') =>
  signedIn({ memberId: await memberForLoginLink(h.db, await organizationIdOf(h.db, org), role) });

async function open(page: Page, path: string): Promise<void> {
  await page.goto(`${h.url}${path}`);
  await waitReady(page);
}
const badgeOf = (page: Page, campaignId: string) => page.locator(`tr[data-campaign-id="${campaignId}"] [data-delivery]`);

test('a card with no landing page: the badge, the issue and what to do; the owner sets a logo and the website on the Account page and the card serves', async () => {
  const org = await newOrg(h.db, { domain: undefined });
  const topic = word();
  const tree = await insertTree(h.db, org, { campaign: { ...serving, targetCountries: ['NR'] }, adGroup: { contextHints: [topic] } });
  live.push(tree.campaign.id);
  const request = contextualRequest({
    country_code: 'NR',
    messages: [
      { role: 'user', content: `Any advice about ${topic} please` },
      { role: 'assistant', content: `Sure, here is what I know about ${topic}.` },
    ],
  });
  await until(() => auction.auction.deps.catalog.ads.some((a) => a.adId === tree.ad.id), 'the ad in the index');
  expect((await adRequest(auction, request)).body.ad).toBeNull();

  // The list: a not_delivering badge. The campaign page: the issue, on the ad, with what to do.
  const page = await memberPage(org);
  await expect(badgeOf(page, tree.campaign.id).getAttribute('data-delivery')).resolves.toBe('not_delivering');
  await open(page, `/dashboard/campaigns/${tree.campaign.id}`);
  await expect(page.locator('.delivery [data-delivery]').textContent()).resolves.toBe('not delivering');
  const issue = page.locator('.delivery [data-issue="no_landing_url"]');
  await expect(issue.getAttribute('data-entity')).resolves.toBe(tree.ad.id);
  await expect(issue.locator('.entity').textContent()).resolves.toBe(`Ad: ${tree.ad.name}`);
  await expect(issue.locator('.message').textContent()).resolves.toContain('No landing page');
  await expect(issue.locator('.action').textContent()).resolves.toContain("What to do: Set the account's website (dashboard Account page");
  await screenshot(page, 'campaign-delivery-issues');

  // The Account page: a logo first (the card still has nowhere to send a click), then the website.
  await page.getByRole('link', { name: 'Account' }).click();
  await page.waitForURL(`${h.url}/dashboard/account`);
  await waitReady(page);
  const logo = await uniquePng();
  await page.getByLabel('Logo image (PNG, JPEG or WebP, at most 5 MB)').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: logo.bytes });
  await page.getByRole('button', { name: 'Upload logo' }).click();
  await page.getByText('Logo uploaded.').waitFor();
  await expect(page.locator('img.logo').evaluate(imageLoaded)).resolves.toBe(true);
  expect((await adRequest(auction, request)).body.ad).toBeNull();

  await page.getByLabel('Website (where a click goes when an ad names no target URL)').fill('https://nr-shop.example/');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText('Saved.').waitFor();
  await expect(page.locator('[data-setting="website"]').textContent()).resolves.toBe('https://nr-shop.example/');
  await screenshot(page, 'account');
  const preview = `${config.api.publicUrl}/assets/${logo.sha256}.png`;
  expect((await call(h.url, 'GET', '/v1/ad_account', { token: org.api_key })).body).toMatchObject({ url: 'https://nr-shop.example/', preview_url: preview });

  // A real auction serves the card within seconds, and its click lands on the website.
  let ad: any = null;
  await until(
    async () => {
      ad = (await adRequest(auction, request)).body.ad;
      return ad !== null;
    },
    'the card served',
    10_000,
  );
  expect(ad).toMatchObject({ placement: 'text', headline: tree.ad.title, logo_url: preview });
  const click = await fetch(linkOn(h.url, ad.url), { redirect: 'manual' }); // the tracker under the public URL, on this harness
  expect(click.headers.get('location')).toMatch(/^https:\/\/nr-shop\.example\//);

  // The diagnostics read the auction's last hour from ClickHouse. This auction's tallies go there now, not on its 10 s timer:
  // both pages read its win, beside what other files' auctions tallied of the card (requests from other countries).
  await auction.auction.flushInhouseStats();
  const delivery = await call(h.url, 'GET', `/v1/campaigns/${tree.campaign.id}/delivery`, { token: org.api_key });
  expect(delivery.body.traffic).toMatchObject({ eligible: 1, won: 1, outbid: 0 });
  await open(page, '/dashboard/');
  await expect(badgeOf(page, tree.campaign.id).getAttribute('data-delivery')).resolves.toBe('delivering');
  await open(page, `/dashboard/campaigns/${tree.campaign.id}`);
  await expect(page.locator('.delivery [data-delivery]').textContent()).resolves.toBe('delivering');
  expect(await page.locator('.delivery [data-issue]').count()).toBe(0);
});

test('a member sees the Account page read-only; the card id stays with owners and admins', async () => {
  const org = await newOrg(h.db);
  const page = await memberPage(org, 'member');
  await page.getByRole('link', { name: 'Account' }).click();
  await page.waitForURL(`${h.url}/dashboard/account`);
  await waitReady(page);
  await expect(page.locator('[data-setting="website"]').textContent()).resolves.toContain('example.com');
  await expect(page.locator('[data-setting="payment-method"]').textContent()).resolves.toBe('Set');
  expect(await page.locator('form.account-form').count()).toBe(0);
  await page.getByText('Only owners and admins can change these settings.').waitFor();
});

test('the walkthrough: "Scheduled: starts ...", spend under a cent, Activate off while active, poll results per option', async () => {
  const org = await newOrg(h.db);
  await h.db.adAccount.update({ where: { id: org.ad_account_id }, data: { logoUrl: 'https://cdn.example/logo.png' } });
  const start = new Date(Math.floor(Date.now() / 60_000 + 2 * 24 * 60) * 60_000);
  const tree = await insertTree(h.db, org, { campaign: { status: 'active', reviewStatus: 'approved', startTime: start } });
  await h.db.campaignSpend.create({ data: { campaignId: tree.campaign.id, spentMicros: 15_000n } });
  const polls = await insertAdGroup(h.db, tree.campaign.id, { name: 'Polls', creativeType: 'poll' });
  const poll = await insertAd(h.db, polls.id, {
    creativeType: 'poll',
    title: 'Which distance?',
    options: ['5 km', '10 km', 'Marathon'],
    targetUrl: 'https://run.example/',
  });
  await h.db.$transaction((tx) => approveCampaignCreatives(tx, tree.campaign.id));
  for (const option of ['opt_1', 'opt_1', 'opt_3']) await castVote(h.db, { adId: poll.id, auctionId: randomBytes(8).toString('hex'), kind: 'vote' }, option);

  const page = await memberPage(org);
  const when = start.toISOString().replace('T', ' ').slice(0, 16);
  await expect(badgeOf(page, tree.campaign.id).textContent()).resolves.toBe(`Scheduled: starts ${when} UTC`);
  await expect(page.locator(`tr[data-campaign-id="${tree.campaign.id}"] td[data-label="Spend / budget"]`).textContent()).resolves.toBe('$0.015 / $5.00');

  await open(page, `/dashboard/campaigns/${tree.campaign.id}`);
  await expect(page.getByRole('button', { name: 'Activate' }).isDisabled()).resolves.toBe(true);
  await expect(page.getByRole('button', { name: 'Pause' }).isDisabled()).resolves.toBe(false);
  await expect(page.locator('label[for="spend-meter"]').textContent()).resolves.toContain('Spend $0.015 of $5.00');
  await expect(page.locator('.delivery [data-issue="scheduled"] .message').textContent()).resolves.toBe(`Scheduled: starts at ${start.toISOString()}.`);
  const results = page.locator(`[data-ad-id="${poll.id}"] figure.poll li`);
  await expect(results.evaluateAll((lis) => lis.map((li) => [...li.children].map((c) => c.textContent)))).resolves.toEqual([
    ['5 km', '2 votes · 67%'],
    ['10 km', '0 votes · 0%'],
    ['Marathon', '1 vote · 33%'],
  ]);
  await expect(page.locator(`[data-ad-id="${poll.id}"] .total`).textContent()).resolves.toBe('3 votes in total');
});

describe('reviewers', () => {
  const staff = () => signedIn({ staffName: 'Delivery reviewer' });

  test('the queue shows what would keep a campaign from serving beside Approve, and Approve still works', async () => {
    const org = await newOrg(h.db, { domain: undefined });
    const created = await call(h.url, 'POST', '/v1/campaigns', {
      token: org.api_key,
      body: {
        name: `No landing page ${word()}`,
        budget: { lifetime_spend_limit_micros: 5_000_000 },
        ad_groups: [{ context_hints: ['shoes'], ads: [{ creative: { type: 'chat_card', title: 'Run faster', body: 'Light shoes' } }] }],
      },
    });
    expect(created.status).toBe(201);
    const page = await staff();
    await open(page, `/dashboard/review?campaign=${created.body.id}`);
    const card = page.locator(`article[data-campaign-id="${created.body.id}"]`);
    // Waiting for review and paused are what approval and activation resolve: not listed.
    await expect(card.locator('.blocking [data-issue]').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-issue')))).resolves.toEqual([
      'no_landing_url',
    ]);
    await expect(card.locator('.blocking .action').textContent()).resolves.toContain('website');
    await screenshot(page, 'review-queue-blocking-issues');
    await card.getByRole('button', { name: 'Approve' }).click();
    await page.waitForSelector(`article[data-campaign-id="${created.body.id}"][data-outcome="approved"]`);
    expect((await h.db.campaign.findUniqueOrThrow({ where: { id: created.body.id } })).reviewStatus).toBe('approved');
  });

  test('an edited creative: /dashboard/live shows the approved version serving with the edit beside it; the queue lists it and approves the edit', async () => {
    const org = await newOrg(h.db);
    await h.db.adAccount.update({ where: { id: org.ad_account_id }, data: { logoUrl: 'https://cdn.example/logo.png' } });
    const tree = await insertTree(h.db, org, { campaign: serving });
    live.push(tree.campaign.id);
    const edited = await call(h.url, 'POST', `/v1/ads/${tree.ad.id}`, {
      token: org.api_key,
      body: { creative: { type: 'chat_card', title: 'Edited title', body: 'New body' } },
    });
    expect(edited).toMatchObject({ status: 200 });

    const page = await staff();
    await open(page, `/dashboard/live?campaign=${tree.campaign.id}`);
    const ad = page.locator(`[data-ad-id="${tree.ad.id}"]`);
    await expect(ad.locator('.version-serving figure .title').textContent()).resolves.toBe('Run faster');
    await expect(ad.locator('.version-edit figure.edit .title').textContent()).resolves.toBe('Edited title');
    await expect(ad.locator('.version-edit .version').textContent()).resolves.toBe('Edit waiting for review (revision 2)');
    await screenshot(page, 'live-pending-edit');

    await open(page, `/dashboard/review?campaign=${tree.campaign.id}`);
    const card = page.locator(`article[data-campaign-id="${tree.campaign.id}"]`);
    await expect(card.locator('.awaiting').count()).resolves.toBe(1);
    expect(await card.getByRole('button', { name: 'Approve', exact: true }).count()).toBe(0); // the campaign is approved already
    await card.getByRole('button', { name: 'Approve edit' }).click();
    await page.waitForSelector('.creative-verdict[data-outcome="approved"]');
    const after = await h.db.ad.findUniqueOrThrow({ where: { id: tree.ad.id } });
    expect(after).toMatchObject({ creativeReviewStatus: 'approved', approvedCreative: expect.objectContaining({ title: 'Edited title' }) });
  });
});
