/**
 * The demo chat `npm start` serves (dev/demo-chat): its own process against this test's
 * auction, in real Chromium. A message about an active campaign's topic gets the streamed
 * reply, then the campaign's ad beside it through the SDK, and its impression is recorded;
 * a click on it and a vote in a poll reach insights (through the worker's export) seconds later.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { auctionSettings } from '../../auction/settings';
import { startService, type ServiceProcess } from '../../dev/processes';
import { insertTree, organizationIdOf } from '../support/fixtures';
import { newOrg } from '../support/harness';
import { useApiAndAuction } from '../support/api-and-auction';
import { until } from '../support/wait';
import { DESKTOP, launchBrowser, newSession, screenshot, type Session } from '../dashboard/browser';

jest.setTimeout(120_000);

const { api, h, live } = useApiAndAuction();
const CHROME_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const topic = `zd${randomBytes(4).toString('hex')}`;
const pollTopic = `zq${randomBytes(4).toString('hex')}`;
let apiKey: string;
let pollCampaignId: string;
const trackingUrl = auctionSettings.trackingUrl;
const keyDir = mkdtempSync(path.join(tmpdir(), 'demo-chat-'));
let demo: ServiceProcess;
let browser: Browser;
let session: Session;

beforeAll(async () => {
  auctionSettings.trackingUrl = api.url;
  const org = await newOrg(api.db);
  await api.db.adAccount.updateMany({ where: { organizationId: await organizationIdOf(api.db, org) }, data: { logoUrl: 'https://cdn.example/logo.png' } });
  const tree = await insertTree(api.db, org, {
    campaign: { status: 'active', reviewStatus: 'approved', startTime: new Date(Date.now() - 3_600_000), targetCountries: ['US'] },
    adGroup: { contextHints: [topic], maxBidMicros: 50_000_000n },
    ad: { title: `All about ${topic}`, body: 'The demo campaign', cta: 'Look', targetUrl: 'https://shop.example/demo' },
  });
  const poll = await insertTree(api.db, org, {
    campaign: { status: 'active', reviewStatus: 'approved', startTime: new Date(Date.now() - 3_600_000), targetCountries: ['US'] },
    adGroup: { contextHints: [pollTopic], creativeType: 'poll', maxBidMicros: 50_000_000n },
    ad: { creativeType: 'poll', title: `Which ${pollTopic} do you like?`, body: null, options: ['Red', 'Blue'], targetUrl: 'https://shop.example/poll' },
  });
  live.push(tree.campaign.id, poll.campaign.id);
  apiKey = org.api_key;
  pollCampaignId = poll.campaign.id;
  await until(() => [tree.ad.id, poll.ad.id].every((id) => h.auction.deps.catalog.ads.some((a) => a.adId === id)), 'the ads in the index');
  demo = await startService({
    entry: 'dev/demo-chat/main.ts',
    ready: /demo chat listening/,
    portVariable: 'DEMO_CHAT_PORT',
    env: { AUCTION_PORT: new URL(h.url).port, DEMO_CHAT_KEY_FILE: path.join(keyDir, 'key.json') },
  });
  browser = await launchBrowser();
  session = await newSession(browser, DESKTOP, { userAgent: CHROME_UA });
  await session.context.route(/^https:\/\/cdn\.example\//, (route) => route.fulfill({ status: 404 }));
  await session.context.route(/^https:\/\/shop\.example\//, (route) =>
    route.fulfill({ status: 200, contentType: 'text/html', body: '<title>Landing</title>' }),
  );
});

afterAll(async () => {
  auctionSettings.trackingUrl = trackingUrl;
  expect(session?.outside ?? []).toEqual([]);
  await browser?.close();
  await demo?.stop();
  rmSync(keyDir, { recursive: true, force: true });
});

test('a message about the campaign: the streamed reply, then its ad through the SDK, and the impression', async () => {
  const { page } = session;
  await page.goto(demo.url);
  await page.getByPlaceholder('Type a message').fill(`Tell me about ${topic}`);
  await page.getByRole('button', { name: 'Send' }).click();
  const ad = page.getByRole('complementary', { name: /^Sponsored: / });
  await ad.waitFor();
  await expect(page.getByText(`All about ${topic}`).isVisible()).resolves.toBe(true);
  await expect(page.getByText(/Good question\. About .* so you learn what works\./).isVisible()).resolves.toBe(true);
  // In view on a desktop screen: viewable a second later, and the pixel recorded.
  await page
    .locator('#events')
    .getByText(/"type":"viewable"/)
    .waitFor();
  await until(async () => (await api.db.deliveryLedger.count({ where: { campaignId: live[0], eventType: 'impression' } })) === 1, 'the impression');
  await screenshot(page, 'sdk-demo-chat');
});

/** The campaign's totals in insights (what the advertiser sees), once they have come. */
async function insightsOf(campaignId: string, fields: string[], expected: Record<string, number>) {
  const query = fields.map((f) => `fields[]=${f}`).join('&');
  let totals: Record<string, number> = {};
  await until(
    async () => {
      const res = await fetch(`${api.url}/v1/campaigns/${campaignId}/insights?${query}`, { headers: { authorization: `Bearer ${apiKey}` } });
      const rows = ((await res.json()) as { data: Record<string, number>[] }).data ?? [];
      totals = Object.fromEntries(fields.map((f) => [f, rows.reduce((sum, r) => sum + (r[f] ?? 0), 0)]));
      return fields.every((f) => totals[f] === expected[f]);
    },
    `insights ${JSON.stringify(expected)}`,
    60_000,
  );
  return totals;
}

test('a click on the ad and a vote in a poll show up in insights a few seconds later', async () => {
  const { page, context } = session;
  await page.goto(demo.url);
  await page.getByPlaceholder('Type a message').fill(`Tell me about ${topic}`);
  await page.getByRole('button', { name: 'Send' }).click();
  const ad = page.getByRole('complementary', { name: /^Sponsored: / }).last();
  await ad.waitFor();
  // Viewable first (the new tab the click opens must not be what hides it).
  await page
    .locator('#events')
    .getByText(/"type":"viewable"/)
    .waitFor();
  const [tab] = await Promise.all([context.waitForEvent('page'), ad.getByRole('link').first().click()]);
  await tab.waitForURL(/shop\.example\/demo/);
  await tab.close();
  expect(await insightsOf(live[0], ['impressions', 'clicks'], { impressions: 2, clicks: 1 })).toEqual({ impressions: 2, clicks: 1 });

  await page.getByPlaceholder('Type a message').fill(`Which ${pollTopic} should I pick?`);
  await page.getByRole('button', { name: 'Send' }).click();
  await page.getByRole('button', { name: 'Blue' }).click();
  await page
    .locator('#events')
    .getByText(/"type":"vote"/)
    .waitFor();
  expect(await insightsOf(pollCampaignId, ['impressions', 'poll_votes'], { impressions: 1, poll_votes: 1 })).toEqual({ impressions: 1, poll_votes: 1 });
});
