/**
 * The native DSP protocol end to end against real HTTP DSPs on loopback:
 * request headers and body, ad_data validation with each rejection reason,
 * price rounding and floors, render for the winner, render fallback, faults,
 * the deadline, and the non-bid reasons recorded per bid.
 */
import { bankersRoundCents, bidPriceMicros } from '../../auction/dsp/native-creative';
import { addReferenceDsp, adRequest, BROWSER_UA, contextualRequest, dropReferenceDsp, loggedBids, useAuction, useReferenceDsp } from './support';
import type { ReferenceDsp } from '../../dev/reference-dsp/server';

const request = (o: Record<string, unknown> = {}) => contextualRequest({ country_code: 'AQ', userId: 'user-anon-1', chatId: 'chat-1', ...o });
// Only DSPs bid here: the in-house bidder's budget gate is closed, so other tests' campaigns never compete.
const h = useAuction({ settings: { floorMicros: 100_000 }, budget: { mayServe: () => false } });

/** The bid rows logged to ClickHouse for the auction that answered `res`. */
const records = (res: { body: { auction_id: string } }) => loggedBids(h, res.body.auction_id);

const adData = (o: Record<string, unknown> = {}) => ({
  ad_format: 'sponsored_message',
  placement: 'image',
  headline: 'Run your best race',
  description: 'Light trainers',
  url: 'https://click.dsp.example/c',
  advertiser: 'Shoes Inc',
  domain: 'shoes.example',
  cta_text: 'Shop',
  image_url: 'https://cdn.dsp.example/i.jpg',
  view_url: 'https://t.dsp.example/v',
  ...o,
});

describe('one native DSP', () => {
  const ref = useReferenceDsp(h, 'native', { price: 2 });
  beforeEach(() => {
    ref.dsp.set({ respond: undefined, fault: 'none', creative: 'image', price: 2, latencyMs: 0 });
    ref.dsp.received.length = 0;
    // Each test starts with a healthy DSP (the back-off has its own test below).
    h.auction.deps.health.record(ref.dspId, null);
  });

  /** Makes the DSP answer `data` verbatim to the bid call; returns the auction's answer and the DSP's record. */
  async function withBid(data: unknown, body = request()) {
    ref.dsp.set({ respond: (path) => (path === '/native/bid' ? { status: 200, body: { data } } : undefined) });
    const res = await adRequest(h, body);
    const record = (await records(res)).find((r) => r.bidder_id === ref.dspId);
    return { res, record };
  }

  test('headers exactly as the spec says, and the native request body', async () => {
    const res = await adRequest(h, request({ ip: '203.0.113.9', user_agent: BROWSER_UA, request_id: 'req-7', prefetched: true, nAdsBefore: 3 }));
    expect(res.status).toBe(200);
    const got = ref.dsp.received.find((r) => r.path === '/native/bid')!;
    expect(got.headers.authorization).toBe(`Bearer ${ref.key}`);
    expect(got.headers['content-type']).toBe('application/json');
    expect(String(got.headers['x-forwarded-for']).split(',')[0].trim()).toBe('203.0.113.9');
    expect(got.headers['user-agent']).toBe(BROWSER_UA);
    expect(got.body).toEqual({
      userId: 'user-anon-1',
      request_type: 'contextual',
      chatId: 'chat-1',
      nAdsBefore: 3,
      messages: request().messages,
      ad_formats: ['sponsored_message'],
      prefetched: true,
      request_id: 'req-7',
      country_code: 'AQ',
      device: 'mobile',
      timezone: 'America/New_York',
      config: { max_headline_chars: 100, image_enabled: true },
    });
  });

  test('openers: no chatId, messages or nAdsBefore; poll is never offered to a DSP', async () => {
    await adRequest(h, {
      userId: 'u',
      request_type: 'opener',
      country_code: 'AQ',
      device: 'tablet',
      timezone: 'UTC',
      ad_formats: ['poll', 'sponsored_carousel'],
    });
    const body = ref.dsp.received.find((r) => r.path === '/native/bid')!.body;
    expect(body).not.toHaveProperty('chatId');
    expect(body).not.toHaveProperty('messages');
    expect(body).not.toHaveProperty('nAdsBefore');
    expect(body.ad_formats).toEqual(['sponsored_carousel']);
    expect(body.request_type).toBe('opener');
  });

  test("the user IP defaults to the caller's address", async () => {
    const body = request();
    delete (body as Record<string, unknown>).ip;
    await adRequest(h, body);
    expect(ref.dsp.received[0].headers['x-forwarded-for']).toBe('127.0.0.1');
  });

  test('a valid ad_data bid wins, with our signed URLs and the DSP price', async () => {
    const { res, record } = await withBid({ bid: 2.345, bidId: 'b-1', ad_data: adData() });
    expect(res.status).toBe(200);
    expect(res.body.ad).toEqual({
      format: 'sponsored_message',
      placement: 'image',
      headline: 'Run your best race',
      description: 'Light trainers',
      advertiser: 'Shoes Inc',
      domain: 'shoes.example',
      cta_text: 'Shop',
      image_url: 'https://cdn.dsp.example/i.jpg',
      url: expect.stringMatching(/\/api\/v1\/tracking\/click\?token=/),
      view_url: expect.stringMatching(/\/api\/v1\/tracking\/view\?token=/),
      feedback_url: expect.stringMatching(/\/api\/v1\/tracking\/feedback\?token=/),
      price: 2.34,
      // From the conversation's categories only (domain/privacy/why-this-ad.ts).
      why_this_ad: 'Shown because this conversation is about Fitness and Exercise (Healthy Living).',
    });
    expect(record).toMatchObject({ outcome: 'won', reason: '', bid_id: 'b-1', price_micros: 2_340_000 });
    expect(ref.dsp.received.some((r) => r.path === '/native/render')).toBe(false);
  });

  test.each<[string, unknown, string]>([
    ['unknown field in ad_data', adData({ tracking_pixel: 'x' }), 'invalid_ad_data'],
    ['wrong type (headline a number)', adData({ headline: 42 }), 'invalid_ad_data'],
    ['missing url', adData({ url: undefined }), 'invalid_ad_data'],
    ['missing advertiser', adData({ advertiser: undefined }), 'invalid_ad_data'],
    ['missing cta_text', adData({ cta_text: undefined }), 'invalid_ad_data'],
    ['url not a URL', adData({ url: 'click here' }), 'invalid_ad_data'],
    ['ad_data not an object', 'creative', 'invalid_ad_data'],
    ['unknown ad_format', adData({ ad_format: 'banner' }), 'invalid_ad_data'],
    ['missing placement', adData({ placement: undefined }), 'dsp_missing_placement'],
    ['image placement without image_url', adData({ image_url: undefined }), 'dsp_invalid_image_bid'],
    ['text placement without logo_url', adData({ placement: 'text', image_url: undefined }), 'dsp_invalid_text_bid'],
    ['headline over max_headline_chars', adData({ headline: 'x'.repeat(101) }), 'asset_too_long'],
    ['carousel not offered', { ad_format: 'sponsored_carousel', items: [] }, 'format_not_offered'],
    // Served as checked (hardening round two): https only, no user info, texts within the OpenRTB asset lengths, well-formed.
    ['an http image_url', adData({ image_url: 'http://cdn.dsp.example/i.jpg' }), 'not_secure'],
    ['an http click url', adData({ url: 'http://click.dsp.example/c' }), 'not_secure'],
    ['a url with user info', adData({ url: 'https://user:pass@click.dsp.example/c' }), 'invalid_ad_data'],
    ['a cta_text of 100,000 characters', adData({ cta_text: 'x'.repeat(100_000) }), 'asset_too_long'],
    ['a description over 200 characters', adData({ description: 'x'.repeat(201) }), 'asset_too_long'],
    ['an advertiser over 50 characters', adData({ advertiser: 'x'.repeat(51) }), 'asset_too_long'],
    ['a headline with a lone surrogate', adData({ headline: 'Run \ud800' }), 'invalid_ad_data'],
    ['a cta_text with a newline', adData({ cta_text: 'Shop\nnow' }), 'invalid_ad_data'],
    ['a domain that is not a host name', adData({ domain: 'shoes.example/"><script>' }), 'invalid_ad_data'],
  ])('ad_data %s: rejected as %s', async (_label, data, reason) => {
    const clean = typeof data === 'object' ? JSON.parse(JSON.stringify(data)) : data;
    const { res, record } = await withBid({ bid: 3, bidId: 'b-x', ad_data: clean });
    expect(res.body.ad).toBeNull();
    expect(record).toMatchObject({ outcome: 'rejected', reason });
  });

  test('creative URLs are served normalized (quotes and brackets percent-encoded, newlines dropped)', async () => {
    const { res } = await withBid({
      bid: 3,
      bidId: 'b',
      ad_data: adData({ image_url: 'https://cdn.dsp.example/i.jpg?x="><img src=y>\n', domain: 'Shoes.EXAMPLE' }),
    });
    expect(res.body.ad).toMatchObject({ image_url: 'https://cdn.dsp.example/i.jpg?x=%22%3E%3Cimg%20src=y%3E', domain: 'shoes.example' });
  });

  test.each([
    ['over 256 characters', 'b'.repeat(257)],
    ['a lone surrogate', 'b-\ud800'],
    ['a control character', 'b-\u0001'],
  ])('a bidId with %s: invalid_response, and nothing of it reaches the log', async (_label, bidId) => {
    const { res, record } = await withBid({ bid: 3, bidId, ad_data: adData() });
    expect(res.body.ad).toBeNull();
    expect(record).toMatchObject({ outcome: 'rejected', reason: 'invalid_response', bid_id: '' });
  });

  test('image placement while config.image_enabled is false: dsp_invalid_image_bid', async () => {
    const { res, record } = await withBid({ bid: 3, bidId: 'b', ad_data: adData() }, request({ config: { image_enabled: false } }));
    expect(res.body.ad).toBeNull();
    expect(record).toMatchObject({ reason: 'dsp_invalid_image_bid', seat_non_bid_code: 353 });
  });

  test('a text bid with a logo serves; a stray image_url is dropped', async () => {
    const { res } = await withBid(
      { bid: 3, bidId: 'b', ad_data: adData({ placement: 'text', logo_url: 'https://cdn.dsp.example/l.png', image_url: null }) },
      request({ config: { image_enabled: false } }),
    );
    expect(res.body.ad).toMatchObject({ placement: 'text', logo_url: 'https://cdn.dsp.example/l.png' });
    expect(res.body.ad).not.toHaveProperty('image_url');
  });

  describe('carousels', () => {
    const tiles = (n = 3) =>
      Array.from({ length: n }, (_, i) => ({ headline: `Tile ${i}`, image_url: `https://cdn.dsp.example/${i}.jpg`, url: `https://c.dsp.example/${i}` }));
    const carousel = (o: Record<string, unknown> = {}) => ({ ad_format: 'sponsored_carousel', advertiser: 'Shoes Inc', items: tiles(), ...o });
    const offered = request({ ad_formats: ['sponsored_carousel'] });

    test('a valid carousel serves with one tracked click URL per tile, order preserved', async () => {
      const { res } = await withBid({ bid: 1, bidId: 'c', ad_data: carousel() }, offered);
      expect(res.body.ad.format).toBe('sponsored_carousel');
      expect(res.body.ad.items.map((t: any) => t.headline)).toEqual(['Tile 0', 'Tile 1', 'Tile 2']);
      expect(new Set(res.body.ad.items.map((t: any) => t.url)).size).toBe(3);
    });

    test.each<[string, unknown, string]>([
      ['two tiles', carousel({ items: tiles(2) }), 'invalid_carousel'],
      ['four tiles', carousel({ items: tiles(4) }), 'invalid_carousel'],
      ['a tile without image', carousel({ items: [...tiles(2), { headline: 'x', url: 'https://c.dsp.example/x' }] }), 'invalid_carousel'],
      ['duplicate tile urls', carousel({ items: tiles().map((t) => ({ ...t, url: 'https://c.dsp.example/same' })) }), 'invalid_carousel'],
      ['two brands', carousel({ items: tiles().map((t, i) => ({ ...t, advertiser: i === 0 ? 'Other Brand' : 'Shoes Inc' })) }), 'invalid_carousel'],
      ['missing ad_format (defaults to sponsored_message)', { items: tiles(), advertiser: 'Shoes Inc' }, 'format_not_offered'],
      ['placement on a carousel', carousel({ placement: 'image' }), 'invalid_ad_data'],
      ['unknown tile field', carousel({ items: tiles().map((t) => ({ ...t, cta_text: 'Buy' })) }), 'invalid_ad_data'],
    ])('%s: %s', async (_label, data, reason) => {
      const { res, record } = await withBid({ bid: 1, bidId: 'c', ad_data: data }, offered);
      expect(res.body.ad).toBeNull();
      expect(record).toMatchObject({ reason });
    });
  });

  test.each<[string, unknown, string]>([
    ['data missing', null, 'invalid_response'],
    ['bid missing', { bidId: 'x' }, 'invalid_response'],
    ['bidId missing', { bid: 1 }, 'invalid_response'],
    ['bid a string', { bid: '1.00', bidId: 'x', ad_data: adData() }, 'invalid_response'],
    ['bid negative', { bid: -0.01, bidId: 'x', ad_data: adData() }, 'invalid_response'],
    ['bid under the floor (0.10)', { bid: 0.09, bidId: 'x', ad_data: adData() }, 'below_floor'],
    ['bid rounding to under the floor (0.095 -> 0.10 is kept; 0.094 -> 0.09)', { bid: 0.094, bidId: 'x', ad_data: adData() }, 'below_floor'],
  ])('%s: %s', async (_label, data, reason) => {
    ref.dsp.set({ respond: (path) => (path === '/native/bid' ? { status: 200, body: data === null ? { status: 'ok' } : { data } } : undefined) });
    const res = await adRequest(h, request());
    expect(res.body.ad).toBeNull();
    expect((await records(res)).find((r) => r.bidder_id === ref.dspId)).toMatchObject({ reason });
  });

  test('no bid: data {} is no_bid (code 0), extra top-level fields ignored', async () => {
    const { res, record } = await withBid({});
    expect(res.body.ad).toBeNull();
    expect(record).toMatchObject({ outcome: 'rejected', reason: 'no_bid', seat_non_bid_code: 0 });
  });

  test.each<[string, Record<string, unknown>, string, number]>([
    ['HTTP 500', { fault: 'http_500' }, 'dsp_http_error', 100],
    ['garbage JSON', { fault: 'garbage_json' }, 'invalid_response', 102],
    ['invalid ad_data', { fault: 'invalid_ad_data' }, 'invalid_ad_data', 350],
    ['wrong placement', { fault: 'wrong_placement' }, 'dsp_invalid_image_bid', 353],
    ['missing placement', { fault: 'missing_placement' }, 'dsp_missing_placement', 353],
  ])('reference DSP fault %s: %s (%d)', async (_label, options, reason, code) => {
    ref.dsp.set(options);
    const res = await adRequest(h, request());
    expect(res.body.ad).toBeNull();
    expect((await records(res)).find((r) => r.bidder_id === ref.dspId)).toMatchObject({ reason, seat_non_bid_code: code });
  });

  test('render: a bid without ad_data is rendered with the realized (first) price, strictly validated', async () => {
    ref.dsp.set({ creative: 'render', price: 1.25 });
    const res = await adRequest(h, request());
    expect(res.body.ad).toMatchObject({ format: 'sponsored_message', headline: 'Run your best race', price: 1.25 });
    const render = ref.dsp.received.find((r) => r.path === '/native/render')!;
    expect(render.headers['content-type']).toBe('application/json');
    expect(render.headers.authorization).toBeUndefined();
    expect(render.body).toEqual({ bidId: expect.any(String), realizedPrice: 1.25, production: true });
  });

  test('render answers with an unknown field: the ad is dropped (invalid_ad_data)', async () => {
    ref.dsp.set({ fault: 'render_invalid' });
    const res = await adRequest(h, request());
    expect(res.body.ad).toBeNull();
    expect((await records(res)).find((r) => r.bidder_id === ref.dspId)).toMatchObject({ reason: 'invalid_ad_data' });
  });

  test('render 404 (bid expired at the DSP): render_failed', async () => {
    ref.dsp.set({ fault: 'expired_render' });
    const res = await adRequest(h, request());
    expect(res.body.ad).toBeNull();
    expect((await records(res)).find((r) => r.bidder_id === ref.dspId)).toMatchObject({ reason: 'render_failed', seat_non_bid_code: 100 });
  });
});

describe('several DSPs', () => {
  const dsps: { dsp: ReferenceDsp; dspId: string }[] = [];
  afterEach(async () => {
    for (const d of dsps.splice(0)) await dropReferenceDsp(h, d);
  });

  test('the highest valid bid wins; the others are lost', async () => {
    for (const price of [1.1, 3.3, 2.2]) dsps.push(await addReferenceDsp(h, 'native', { price }));
    const res = await adRequest(h, request());
    expect(res.body.ad.price).toBe(3.3);
    const outcomes = Object.fromEntries((await records(res)).filter((r) => r.bidder_kind === 'native').map((r) => [r.price_micros, r.outcome]));
    expect(outcomes).toEqual({ 1_100_000: 'lost', 3_300_000: 'won', 2_200_000: 'lost' });
  });

  test("render fallback: the winner's render fails, the next-highest bid is rendered", async () => {
    dsps.push(await addReferenceDsp(h, 'native', { price: 5, fault: 'expired_render' }));
    dsps.push(await addReferenceDsp(h, 'native', { price: 4, creative: 'render' }));
    dsps.push(await addReferenceDsp(h, 'native', { price: 3 }));
    const res = await adRequest(h, request());
    expect(res.body.ad.price).toBe(4);
    const byPrice = Object.fromEntries((await records(res)).filter((r) => r.bidder_kind === 'native').map((r) => [r.price_micros, [r.outcome, r.reason]]));
    expect(byPrice).toEqual({ 5_000_000: ['rejected', 'render_failed'], 4_000_000: ['won', ''], 3_000_000: ['lost', ''] });
    expect(dsps[1].dsp.received.some((r) => r.path === '/native/render')).toBe(true);
  });

  test('deadline: a DSP slower than tmax does not delay the answer; it is cut as timeout', async () => {
    const slow = await addReferenceDsp(h, 'native', { price: 9, fault: 'slow', slowMs: 20_000 });
    dsps.push(slow);
    dsps.push(await addReferenceDsp(h, 'native', { price: 1 }));
    const started = Date.now();
    const res = await adRequest(h, request({ tmax: 300 }));
    // The slow DSP would answer after 20 s; the auction answered with the other bid long before.
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(res.body.ad.price).toBe(1);
    expect((await records(res)).find((r) => r.bidder_id === slow.dspId)).toMatchObject({ outcome: 'rejected', reason: 'timeout', seat_non_bid_code: 101 });
  });

  test('a DSP that keeps failing is backed off (dsp_backed_off, 203), and not called', async () => {
    const bad = await addReferenceDsp(h, 'native', { fault: 'http_500' });
    dsps.push(bad);
    for (let i = 0; i < 5; i += 1) await adRequest(h, request());
    const calls = bad.dsp.received.length;
    const res = await adRequest(h, request());
    expect(bad.dsp.received.length).toBe(calls);
    expect((await records(res)).find((r) => r.bidder_id === bad.dspId)).toMatchObject({ reason: 'dsp_backed_off', seat_non_bid_code: 203 });
  });

  test('an unreachable DSP: unreachable (103)', async () => {
    const gone = await addReferenceDsp(h, 'native', {});
    dsps.push(gone);
    await gone.dsp.close();
    const res = await adRequest(h, request());
    expect((await records(res)).find((r) => r.bidder_id === gone.dspId)).toMatchObject({ reason: 'unreachable', seat_non_bid_code: 103 });
  });
});

describe("price rounding (banker's, two decimals)", () => {
  test.each([
    [0.125, 12],
    [0.135, 14],
    [1.005, 100],
    [2.345, 234],
    [2.355, 236],
    [0.1, 10],
    [3, 300],
    [0.124999, 12],
  ])('%d USD -> %d cents', (dollars, cents) => {
    expect(bankersRoundCents(dollars)).toBe(cents);
  });
  test('micros', () => {
    expect(bidPriceMicros(1.235)).toBe(1_240_000);
  });
});
