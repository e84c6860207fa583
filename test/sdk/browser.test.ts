/**
 * The chat host's SDK in real headless Chromium (Debian's, driven by playwright-core): a host
 * page and backend (test/sdk/support.ts) ask the real auction through @chat-ads/node, the
 * browser core renders the answer and calls the real api's trackers across origins.
 *
 * Time in the page is Playwright's clock (setTimeout, Date): a test moves it by exactly the
 * span it is about (0.5 s, 1.2 s) after waiting for the SDK's own debug line that says the
 * ad is in view, so nothing depends on how fast the machine is. A hidden tab is the Page
 * Visibility API's state set on the document (headless Chromium reports every tab visible).
 * Screenshots of each creative kind, light and dark: test-output/screenshots/sdk-*.png.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Browser, ConsoleMessage, Page } from 'playwright-core';
import sharp from 'sharp';
import { auctionSettings } from '../../auction/settings';
import { insertTree, organizationIdOf } from '../support/fixtures';
import { newOrg } from '../support/harness';
import { useApiAndAuction } from '../support/api-and-auction';
import { until } from '../support/wait';
import { useReferenceDsp } from '../auction/support';
import { DESKTOP, launchBrowser, newSession, type Session } from '../dashboard/browser';
import { SLOT_TOP, startHost, type Host } from './support';
import type { AdEvent } from '../../sdk/core/src/types';

jest.setTimeout(120_000);

// The functions given to page.evaluate run in the browser: its globals, untyped here (the project's tsconfig has no DOM library).
declare const window: any;
declare const document: any;
declare const getComputedStyle: any;

const { api, h, live } = useApiAndAuction();
const COUNTRY = 'NR';
const CHROME_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const SCREENSHOTS = path.resolve(__dirname, '../../test-output/screenshots');

let browser: Browser;
let host: Host;
let png: Buffer;
const sessions: Session[] = [];
const trackingUrl = auctionSettings.trackingUrl;
const topics = { message: `zm${randomBytes(4).toString('hex')}`, poll: `zp${randomBytes(4).toString('hex')}` };

beforeAll(async () => {
  // The answer's tracking URLs point at this test's api.
  auctionSettings.trackingUrl = api.url;
  browser = await launchBrowser();
  png = await sharp({ create: { width: 400, height: 400, channels: 3, background: { r: 90, g: 140, b: 200 } } })
    .png()
    .toBuffer();
  const org = await newOrg(api.db);
  await api.db.adAccount.updateMany({ where: { organizationId: await organizationIdOf(api.db, org) }, data: { logoUrl: 'https://cdn.example/logo.png' } });
  const campaign = { status: 'active', reviewStatus: 'approved', startTime: new Date(Date.now() - 3_600_000), targetCountries: [COUNTRY] };
  const message = await insertTree(api.db, org, {
    campaign,
    adGroup: { contextHints: [topics.message], maxBidMicros: 2_000_000n },
    ad: { title: 'Bake real sourdough', body: 'A live starter, flour and a proofing basket.', cta: 'Shop', targetUrl: 'https://shop.example/sourdough' },
  });
  const poll = await insertTree(api.db, org, {
    campaign,
    adGroup: { contextHints: [topics.poll], creativeType: 'poll', maxBidMicros: 2_000_000n },
    ad: {
      creativeType: 'poll',
      title: 'Which loaf do you bake most?',
      body: null,
      options: ['Sourdough', 'Rye', 'Baguette'],
      targetUrl: 'https://shop.example/poll',
    },
  });
  live.push(message.campaign.id, poll.campaign.id);
  await until(() => [message.ad.id, poll.ad.id].every((id) => h.auction.deps.catalog.ads.some((a) => a.adId === id)), 'the ads in the index');
  host = await startHost(h.url, h.publisherKey, { country_code: COUNTRY, device: 'desktop', timezone: 'Pacific/Nauru' }, api.url);
});

afterAll(async () => {
  auctionSettings.trackingUrl = trackingUrl;
  for (const s of sessions) expect(s.outside).toEqual([]); // browser traffic stayed on 127.0.0.1
  await browser?.close();
  await host?.close();
});

let counter = 0;
/** A new conversation (a user and chat of its own: no frequency cap in the way) about `topic`. */
function conversation(topic: string, extra: Record<string, unknown> = {}) {
  counter += 1;
  return {
    userId: `sdk-user-${process.pid}-${counter}`,
    chatId: `sdk-chat-${process.pid}-${counter}`,
    messages: [
      { role: 'user', content: `Tell me about ${topic}` },
      { role: 'assistant', content: `Here is what I know about ${topic}.` },
    ],
    ...extra,
  };
}

/**
 * The host's page in a fresh browser profile with a desktop Chrome's User-Agent (a headless
 * one is a bot: no ad). The advertisers' and the reference DSP's hosts are answered here,
 * never sent: images, the DSP's pixel, landing pages.
 */
async function openHost(options: { clock?: boolean; path?: string } = {}): Promise<{ page: Page; session: Session; pixels: string[] }> {
  // Playwright's clock is a script the page's CSP would block: the clock's pages bypass the CSP (the others keep it).
  const session = await newSession(browser, DESKTOP, { userAgent: CHROME_UA, bypassCSP: options.clock === true });
  sessions.push(session);
  const { context, page } = session;
  await context.route(/^https:\/\/(cdn\.example|cdn\.reference-dsp\.example)\//, (route) =>
    route.fulfill({ status: 200, contentType: 'image/png', body: png }),
  );
  await context.route(/^https:\/\/track\.reference-dsp\.example\//, (route) => route.fulfill({ status: 204 }));
  await context.route(/^https:\/\/(shop\.example|click\.reference-dsp\.example)\//, (route) =>
    route.fulfill({ status: 200, contentType: 'text/html', body: '<title>Landing</title>' }),
  );
  const pixels: string[] = [];
  page.on('request', (request) => {
    if (request.url().includes('/api/v1/tracking/view')) pixels.push(request.url());
  });
  if (options.clock) await page.clock.install();
  await page.goto(`${host.url}${options.path ?? '/'}`);
  // Paused: an installed clock otherwise flows with real time, and a slow machine's wait for a debug line would count as time in view.
  if (options.clock) await page.clock.pauseAt(Date.now() + 60_000);
  return { page, session, pixels };
}

/** The SDK's debug line matching `pattern` (register before the action that causes it). */
const debugLine = (page: Page, pattern: RegExp) =>
  page.waitForEvent('console', { predicate: (m: ConsoleMessage) => m.text().startsWith('[chat-ads]') && pattern.test(m.text()), timeout: 30_000 });

const eventsOf = (page: Page) => page.evaluate(() => (window as unknown as { events: AdEvent[] }).events);
const typesOf = async (page: Page) => (await eventsOf(page)).map((e) => e.type);
const scrollTo = (page: Page, y: number) => page.evaluate((top) => window.scrollTo(0, top), y);

/** Asks through the host's backend and renders; resolves with the answer once the ad has rendered. */
async function show(page: Page, request: Record<string, unknown>, options: Record<string, unknown> = {}) {
  const rendered = debugLine(page, /^\[chat-ads\] rendered/);
  const answer = await page.evaluate(([r, o]) => (window as unknown as { show: (r: unknown, o: unknown) => Promise<any> }).show(r, o), [
    request,
    options,
  ] as const);
  expect(answer.ad).not.toBeNull();
  await rendered;
  return answer as { auction_id: string; ad: Record<string, any>; test?: boolean };
}

const impressions = (auctionId: string) => api.db.deliveryLedger.count({ where: { auctionId, eventType: 'impression' } });

// Bids on every conversation, below our advertisers' bids: it wins only where none of ours fits. Declared
// in a describe of its own so that it is removed before the auction closes (after-hooks run in order).
describe('with a reference DSP', () => {
  const ref = useReferenceDsp(h, 'native', { price: 0.05 });

  describe('the view pixel: MRC, 50% of the ad in view for one continuous second', () => {
    test('0.5 s in view fires nothing; 1.2 s fires exactly one; never a second', async () => {
      const { page, pixels } = await openHost({ clock: true });
      const answer = await show(page, conversation(topics.message));
      expect(answer.ad).toMatchObject({ format: 'sponsored_message', placement: 'text', advertiser: expect.any(String) });

      let counting = debugLine(page, /in view: counting/);
      await scrollTo(page, SLOT_TOP - 100);
      await counting;
      await page.clock.runFor(500);
      expect(await typesOf(page)).not.toContain('viewable');
      const reset = debugLine(page, /out of view: count reset/);
      await scrollTo(page, 0);
      await reset;
      await page.clock.runFor(5_000); // out of view: the half second seen before never completes
      expect(await typesOf(page)).not.toContain('viewable');
      expect(pixels).toEqual([]);

      counting = debugLine(page, /in view: counting/);
      await scrollTo(page, SLOT_TOP - 100);
      await counting;
      const pixel = page.waitForRequest((r) => r.url().includes('/api/v1/tracking/view'));
      await page.clock.runFor(1_200);
      expect((await pixel).url()).toBe(answer.ad.view_url);
      await until(async () => (await impressions(answer.auction_id)) === 1, 'the impression in the ledger');

      // Out of view and back, for a long while: still the one pixel.
      await scrollTo(page, 0);
      await scrollTo(page, SLOT_TOP - 100);
      await page.clock.runFor(5_000);
      expect((await typesOf(page)).filter((t) => t === 'viewable')).toHaveLength(1);
      expect(pixels).toEqual([answer.ad.view_url]);
      expect(await typesOf(page)).toEqual(['fill', 'rendered', 'viewable']);
    });

    test('an ad scrolled so that 40% of it shows fires none; at 60% it does', async () => {
      const { page, pixels } = await openHost({ clock: true });
      await show(page, conversation(topics.message));
      const { height } = (await page.locator('#slot').boundingBox())!;
      const partly = debugLine(page, /\[chat-ads\] (3[5-9]|4[0-5])% in view/);
      await scrollTo(page, SLOT_TOP - DESKTOP.height + Math.round(0.4 * height));
      await partly;
      await page.clock.runFor(5_000);
      expect(await typesOf(page)).not.toContain('viewable');
      expect(pixels).toEqual([]);

      const counting = debugLine(page, /in view: counting/);
      await scrollTo(page, SLOT_TOP - DESKTOP.height + Math.round(0.6 * height));
      await counting;
      const pixel = page.waitForRequest((r) => r.url().includes('/api/v1/tracking/view'));
      await page.clock.runFor(1_000);
      await pixel;
      expect(await typesOf(page)).toContain('viewable');
    });

    test('a hidden tab fires none until it is shown', async () => {
      const { page, pixels } = await openHost({ clock: true });
      await show(page, conversation(topics.message));
      await page.evaluate(() => {
        Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
        document.dispatchEvent(new Event('visibilitychange'));
      });
      const inView = debugLine(page, /\[chat-ads\] 100% in view/);
      await scrollTo(page, SLOT_TOP - 100);
      await inView;
      await page.clock.runFor(10_000);
      expect(await typesOf(page)).not.toContain('viewable');
      expect(pixels).toEqual([]);

      const counting = debugLine(page, /in view: counting/);
      await page.evaluate(() => {
        Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'visible' });
        document.dispatchEvent(new Event('visibilitychange'));
      });
      await counting;
      const pixel = page.waitForRequest((r) => r.url().includes('/api/v1/tracking/view'));
      await page.clock.runFor(1_000);
      await pixel;
      expect(pixels).toHaveLength(1);
    });
  });

  /** The element focused now, through the SDK's shadow root: its tag and accessible text. */
  const focused = (page: Page) =>
    page.evaluate(() => {
      let el = document.activeElement;
      while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
      return el ? `${el.tagName.toLowerCase()}:${el.getAttribute('aria-label') ?? el.textContent?.trim() ?? ''}` : null;
    });

  /** The names Tab reaches from the button before the ad to the one after it. */
  async function tabStops(page: Page): Promise<string[]> {
    await page.locator('#before').focus();
    const stops: string[] = [];
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Tab');
      const name = (await focused(page))!;
      if (name === 'button:After the ad') return stops;
      stops.push(name);
    }
    throw new Error(`Tab never left the ad: ${stops.join(', ')}`);
  }

  test('a poll, by keyboard alone: votes once, shows the results and the CTA; rendered again, the results URL, no second vote', async () => {
    const { page } = await openHost();
    const votes: string[] = [];
    page.on('request', (r) => r.url().includes('/sponsored-polls/vote') && r.method() === 'POST' && votes.push(r.url()));
    const answer = await show(page, conversation(topics.poll, { ad_formats: ['poll'] }));
    expect(answer.ad).toMatchObject({ format: 'poll', question: 'Which loaf do you bake most?' });
    // The CTA is out of the tab order until the vote.
    expect(await tabStops(page)).toEqual(['button:Why this ad?', 'button:Sourdough', 'button:Rye', 'button:Baguette', 'button:Good ad', 'button:Not for me']);

    await page.locator('#before').focus();
    for (let i = 0; i < 3; i += 1) await page.keyboard.press('Tab');
    const voted = debugLine(page, /^\[chat-ads\] vote/);
    await page.keyboard.press('Enter'); // Rye
    await voted;
    const vote = (await eventsOf(page)).find((e) => e.type === 'vote');
    expect(vote).toMatchObject({ option_id: 'opt_2', results: { total_votes: 1 } });
    await expect(page.getByRole('status').filter({ hasText: '1 vote' }).count()).resolves.toBe(1);
    expect(await page.getByRole('button', { name: /Rye.*100%/ }).getAttribute('aria-pressed')).toBe('true');
    const cta = page.getByRole('link', { name: 'Learn more' });
    expect(await cta.getAttribute('rel')).toBe('sponsored noopener');
    expect(await cta.getAttribute('target')).toBe('_blank');
    expect(await tabStops(page)).toEqual([
      'button:Why this ad?',
      'button:Sourdough0%',
      'button:Rye100%',
      'button:Baguette0%',
      'a:Learn more',
      'button:Good ad',
      'button:Not for me',
    ]);

    // No second vote: another option pressed changes nothing.
    await page.getByRole('button', { name: /Sourdough/ }).click({ force: true }); // aria-disabled: pressable, and nothing happens
    expect(votes).toHaveLength(1);
    const poll = await api.db.pollVote.findMany({ where: { auctionId: answer.auction_id } });
    expect(poll.map((v) => v.optionId)).toEqual(['opt_2']);

    // The conversation rendered again: the results come from the results URL.
    const results = page.waitForRequest((r) => r.url() === answer.ad.results_url);
    await page.evaluate((a) => {
      const w = window as unknown as { handle: { destroy(): void }; ChatAds: { render: (c: unknown, a: unknown) => { destroy(): void } } };
      w.handle.destroy();
      w.handle = w.ChatAds.render(document.getElementById('slot'), a);
    }, answer);
    await results;
    await page.getByRole('button', { name: /Rye.*100%/ }).waitFor();
    expect(votes).toHaveLength(1);
  });

  test('"Why this ad?": a button beside the Sponsored label discloses the answer\'s why_this_ad, by keyboard, as text only; none without one', async () => {
    const { page } = await openHost();
    const answer = await show(page, conversation(topics.message));
    const why = answer.ad.why_this_ad as string;
    expect(why).toMatch(/^Shown because /);
    const button = page.getByRole('button', { name: 'Why this ad?' });
    expect(await button.getAttribute('aria-expanded')).toBe('false');
    const panelId = (await button.getAttribute('aria-controls'))!;
    const panel = page.locator(`[data-chat-ads] #${panelId}`);
    expect(await panel.isVisible()).toBe(false);
    // Beside the label, in the ad's header.
    expect(await button.evaluate((el) => [el.parentElement!.className, el.previousElementSibling!.textContent])).toEqual(['top', 'Sponsored']);

    await button.focus();
    await page.keyboard.press('Enter');
    expect(await button.getAttribute('aria-expanded')).toBe('true');
    expect(await panel.isVisible()).toBe(true);
    expect(await panel.textContent()).toBe(why);
    await page.keyboard.press('Space');
    expect(await button.getAttribute('aria-expanded')).toBe('false');
    expect(await panel.isVisible()).toBe(false);

    // Markup in the text is shown as text: no element is made of it, nothing runs.
    const hostile = '<img src=x onerror="window.pwned=1"><b>bold</b> & more';
    await page.evaluate(
      ([a, text]) => {
        const w = window as unknown as { handle: { destroy(): void }; ChatAds: { render: (c: unknown, a: unknown) => { destroy(): void } } };
        w.handle.destroy();
        w.handle = w.ChatAds.render(document.getElementById('slot'), { ...a, ad: { ...a.ad, why_this_ad: text } });
      },
      [answer, hostile] as const,
    );
    await page.getByRole('button', { name: 'Why this ad?' }).click();
    const shown = page.locator(`[data-chat-ads] #${panelId}`);
    expect(await shown.textContent()).toBe(hostile);
    expect(await shown.evaluate((el) => el.children.length)).toBe(0);
    expect(await page.evaluate(() => window.pwned)).toBeUndefined();

    // An answer without it (an older auction's): no button.
    await page.evaluate((a) => {
      const w = window as unknown as { handle: { destroy(): void }; ChatAds: { render: (c: unknown, a: unknown) => { destroy(): void } } };
      w.handle.destroy();
      const { why_this_ad: _omitted, ...ad } = a.ad;
      w.handle = w.ChatAds.render(document.getElementById('slot'), { ...a, ad });
    }, answer);
    await page.getByRole('complementary').waitFor();
    expect(await page.getByRole('button', { name: 'Why this ad?' }).count()).toBe(0);
  });

  test('no fill: nothing rendered, the reason reported', async () => {
    ref.dsp.set({ noBidRate: 1 });
    try {
      const { page } = await openHost();
      const noFill = debugLine(page, /^\[chat-ads\] no_fill/);
      const answer = await page.evaluate(
        (r) => (window as unknown as { show: (r: unknown) => Promise<any> }).show(r),
        conversation(`zn${randomBytes(4).toString('hex')}`),
      );
      await noFill;
      expect(answer).toMatchObject({ ad: null, no_fill_reason: 'no_bids' });
      expect(await eventsOf(page)).toEqual([{ type: 'no_fill', auction_id: answer.auction_id, no_fill_reason: 'no_bids' }]);
      expect(await page.locator('#slot').evaluate((slot) => slot.childNodes.length)).toBe(0);
    } finally {
      ref.dsp.set({ noBidRate: 0 });
    }
  });

  test('a carousel: three tiles in order, each its own click (new tab, rel sponsored noopener); thumbs down by keyboard', async () => {
    ref.dsp.set({ creative: 'carousel' });
    try {
      const { page, session } = await openHost();
      const answer = await show(page, conversation(`zc${randomBytes(4).toString('hex')}`, { ad_formats: ['sponsored_carousel'] }));
      expect(answer.ad.format).toBe('sponsored_carousel');
      expect(await tabStops(page)).toEqual([
        'button:Why this ad?',
        'a:Model 1 (1 of 3)',
        'a:Model 2 (2 of 3)',
        'a:Model 3 (3 of 3)',
        'button:Good ad',
        'button:Not for me',
      ]);
      const tile = page.getByRole('link', { name: 'Model 2 (2 of 3)' });
      expect(await tile.getAttribute('href')).toBe(answer.ad.items[1].url);
      expect(await tile.getAttribute('rel')).toBe('sponsored noopener');
      expect(await tile.getAttribute('target')).toBe('_blank');
      const [tab] = await Promise.all([session.context.waitForEvent('page'), tile.click()]);
      await tab.waitForURL(/click\.reference-dsp\.example\/c\?tile=2/);
      expect((await eventsOf(page)).find((e) => e.type === 'click')).toEqual({
        type: 'click',
        auction_id: answer.auction_id,
        url: answer.ad.items[1].url,
        tile: 1,
      });
      await until(async () => (await api.db.deliveryLedger.count({ where: { auctionId: answer.auction_id, eventType: 'click' } })) === 1, 'the click');

      // Thumbs down asks why first; the reason is reached by keyboard and sent with the verdict.
      await page.getByRole('button', { name: 'Not for me' }).focus();
      await page.keyboard.press('Enter');
      // Focus moved to the first reason (inside the ad's shadow root).
      const first = page.getByRole('button', { name: 'Not relevant' });
      expect(await first.evaluate((el) => (el.getRootNode() as unknown as { activeElement: unknown }).activeElement === el)).toBe(true);
      const sent = debugLine(page, /^\[chat-ads\] feedback/);
      await page.keyboard.press('Enter');
      await sent;
      expect(await page.getByRole('button', { name: 'Not for me' }).getAttribute('aria-pressed')).toBe('true');
      expect((await eventsOf(page)).find((e) => e.type === 'feedback')).toEqual({
        type: 'feedback',
        auction_id: answer.auction_id,
        feedback: 'thumbs_down',
        reason: 'not_relevant',
      });
      await until(async () => (await api.db.deliveryLedger.count({ where: { auctionId: answer.auction_id, eventType: 'thumbs_down' } })) === 1, 'the feedback');
      expect(await api.db.deliveryLedger.findFirst({ where: { auctionId: answer.auction_id, eventType: 'thumbs_down' } })).toEqual(
        expect.objectContaining({ detail: 'reason:not_relevant' }),
      );
    } finally {
      ref.dsp.set({ creative: 'image' });
    }
  });

  test('each creative kind, light and dark: the Sponsored label and the advertiser shown, nothing outside the container; screenshots', async () => {
    const { page } = await openHost();
    mkdirSync(SCREENSHOTS, { recursive: true });
    const kinds: [string, () => Record<string, unknown>, Partial<Parameters<typeof ref.dsp.set>[0]>][] = [
      ['message-text', () => conversation(topics.message), {}],
      ['message-image', () => conversation(`zi${randomBytes(4).toString('hex')}`), { creative: 'image' }],
      ['carousel', () => conversation(`zc${randomBytes(4).toString('hex')}`, { ad_formats: ['sponsored_carousel'] }), { creative: 'carousel' }],
      ['poll', () => conversation(topics.poll, { ad_formats: ['poll'] }), {}],
    ];
    const outside = () => page.evaluate(() => `${document.head.innerHTML}|${[...document.body.children].map((e) => e.tagName).join(',')}`);
    const before = await outside();
    for (const [kind, request, dsp] of kinds) {
      ref.dsp.set({ creative: 'image', ...dsp });
      for (const theme of ['light', 'dark'] as const) {
        await page.evaluate((dark) => document.body.classList.toggle('dark', dark), theme === 'dark');
        const answer = await show(page, request(), { theme });
        const advertiser = answer.ad.advertiser as string;
        await expect(page.getByText('Sponsored', { exact: true }).isVisible()).resolves.toBe(true);
        await expect(page.getByText(advertiser, { exact: true }).isVisible()).resolves.toBe(true);
        expect(await page.getByRole('complementary', { name: `Sponsored: ${advertiser}` }).count()).toBe(1);
        // Styled under the page's strict CSP (no inline styles allowed): the label's own rule applies.
        expect(await page.getByText('Sponsored', { exact: true }).evaluate((el) => getComputedStyle(el).textTransform)).toBe('uppercase');
        await page.locator('#slot').screenshot({ path: path.join(SCREENSHOTS, `sdk-${kind}-${theme}.png`) });
      }
    }
    ref.dsp.set({ creative: 'image' });
    expect(await outside()).toBe(before);
    expect(await page.evaluate(() => window.violations)).toEqual([]);
  });

  test('React: <ChatAd> renders the promised answer through the core, a new answer replaces it; unmounted before a second in view, no pixel', async () => {
    const { page, pixels } = await openHost({ clock: true, path: '/react' });
    let rendered = debugLine(page, /^\[chat-ads\] rendered/);
    await page.evaluate((r) => window.mount(r), conversation(topics.message));
    await rendered;
    rendered = debugLine(page, /^\[chat-ads\] rendered/);
    const answer = await page.evaluate((r) => window.mount(r), conversation(topics.message));
    await rendered;
    expect(await page.getByRole('complementary').count()).toBe(1);
    expect(await page.locator('[data-chat-ads]').getAttribute('data-chat-ads')).toBe(answer.auction_id);
    await expect(page.getByRole('complementary', { name: `Sponsored: ${answer.ad.advertiser}` }).isVisible()).resolves.toBe(true);
    const counting = debugLine(page, /in view: counting/);
    await scrollTo(page, SLOT_TOP - 100);
    await counting;
    await page.clock.runFor(500);
    await page.evaluate(() => window.unmount());
    expect(await page.locator('#slot').evaluate((slot) => slot.childNodes.length)).toBe(0);
    await page.clock.runFor(5_000);
    expect(pixels).toEqual([]);
    expect(await typesOf(page)).toEqual(['fill', 'rendered', 'fill', 'rendered']);
  });
});
