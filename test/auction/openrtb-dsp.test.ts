/**
 * OpenRTB 2.6 + Native 1.2 against real HTTP DSPs on loopback: the BidRequest
 * field by field (spec 3's tables; the conversation's signals, docs/signals.md), headers and both auth styles, every no-bid
 * form, and each response rule (assets, tagid, HTTPS, lengths, image sizes,
 * floors).
 */
import { createClickhouse } from '../../lib/clickhouse/client';
import { sql } from '../../lib/clickhouse/sql';
import { addReferenceDsp, adRequest, BROWSER_UA, contextualRequest, dropReferenceDsp, loggedBids, useAuction, useReferenceDsp } from './support';

const request = (o: Record<string, unknown> = {}) => contextualRequest({ country_code: 'AQ', userId: 'user-anon-1', chatId: 'chat-1', ...o });
// Only DSPs bid here: the in-house bidder's budget gate is closed, so other tests' campaigns never compete.
const h = useAuction({ settings: { floorMicros: 250_000 }, budget: { mayServe: () => false } });

describe('the BidRequest', () => {
  const ref = useReferenceDsp(h, 'openrtb', { noBidRate: 1 });
  beforeEach(() => {
    ref.dsp.received.length = 0;
  });

  async function sent(body: Record<string, unknown>, headers: Record<string, string> = {}) {
    const res = await adRequest(h, body, h.publisherKey, headers);
    expect(res.status).toBe(200);
    return { res, got: ref.dsp.received.find((r) => r.path === '/openrtb')! };
  }

  test('envelope, impression, native request, site, device, user, regs, source: every field', async () => {
    const { res, got } = await sent(
      request({
        ip: '203.0.113.9',
        user_agent: BROWSER_UA,
        device: 'desktop',
        country_code: 'DE',
        region: 'BE',
        city: 'Berlin',
        language: 'de',
        nAdsBefore: 2,
        prefetched: true,
        site: {
          id: 'bot-42',
          domain: 'chat.example',
          page: 'https://chat.example/c/1',
          publisher: { name: 'Chat Example GmbH', domain: 'CHAT.Example' },
          cat: ['483', 'v9i3On'],
          search: 'best marathon shoes',
          keywords: 'running,shoes',
        },
        bcat: ['IAB25'],
        badv: ['blocked.example'],
      }),
    );
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers.accept).toBe('application/json');
    expect(got.headers['x-openrtb-version']).toBe('2.6');
    expect(got.headers.authorization).toBe(`Bearer ${ref.key}`);
    const br = got.body;
    const nativeReq = JSON.parse(br.imp[0].native.request);
    expect({ ...br, imp: [{ ...br.imp[0], native: { ...br.imp[0].native, request: nativeReq } }] }).toEqual({
      id: res.body.auction_id,
      at: 1,
      tmax: 2000,
      cur: ['USD'],
      test: 0,
      imp: [
        {
          id: '1',
          tagid: 'sponsored_message_image_v1',
          bidfloor: 0.25,
          bidfloorcur: 'USD',
          secure: 1,
          native: {
            ver: '1.2',
            request: {
              ver: '1.2',
              context: 1,
              contextsubtype: 10,
              plcmttype: 4,
              plcmtcnt: 1,
              eventtrackers: [{ event: 1, methods: [1] }],
              privacy: 1,
              assets: [
                { id: 1, required: 1, title: { len: 90 } },
                { id: 2, required: 1, data: { type: 2, len: 200 } },
                { id: 3, required: 1, data: { type: 1, len: 50 } },
                { id: 4, required: 0, img: { type: 3, wmin: 400, hmin: 400, mimes: ['image/jpeg', 'image/png', 'image/webp'] } },
                { id: 5, required: 0, img: { type: 1, wmin: 100, hmin: 100, mimes: ['image/jpeg', 'image/png', 'image/webp'] } },
                { id: 6, required: 1, data: { type: 12, len: 15 } },
              ],
            },
          },
          ext: { own: { chat_id: 'chat-1', n_ads_before: 2, prefetched: true, request_type: 'sponsored_message' } },
        },
      ],
      site: {
        id: 'bot-42',
        domain: 'chat.example',
        page: 'https://chat.example/c/1',
        privacypolicy: 1,
        publisher: { id: h.publisherId, name: 'chat example gmbh', domain: 'chat.example' },
        // The host's own values first and kept; the conversation's categories and keywords follow (the signals test below has them exactly).
        cat: ['483', 'v9i3On', '223', '225'],
        cattax: 7,
        search: 'best marathon shoes',
        keywords: expect.stringMatching(/^running,shoes,marathon training,/),
      },
      // GDPR applies (DE) and no TC string came: the contextual-only request, no user id and the IP cut to its /24 (test/auction/privacy.test.ts).
      device: {
        ua: BROWSER_UA,
        ip: '203.0.113.0',
        devicetype: 2,
        js: 1,
        language: 'de',
        geo: { country: 'DEU', region: 'BE', city: 'Berlin', type: 2 },
      },
      regs: { gdpr: 1 },
      source: {
        fd: 0,
        tid: res.body.auction_id,
        schain: { complete: 1, ver: '1.0', nodes: [{ asi: expect.any(String), sid: h.publisherId, hp: 1, rid: res.body.auction_id }] },
      },
      bcat: ['IAB25'],
      badv: ['blocked.example'],
    });
    expect(br.imp[0]).not.toHaveProperty('pos');
    expect(br.imp[0]).not.toHaveProperty('battr');
  });

  test.each([
    [{ request_type: 'contextual', config: { image_enabled: true } }, 'sponsored_message_image_v1'],
    [{ request_type: 'contextual', config: { image_enabled: false } }, 'sponsored_message_text_v1'],
    [{ request_type: 'opener', config: { image_enabled: true } }, 'opener_image_v1'],
    [{ request_type: 'opener', config: { image_enabled: false } }, 'opener_text_v1'],
  ])('%j: tagid %s, assets by mode', async (variant, tagid) => {
    const body =
      variant.request_type === 'opener'
        ? { userId: 'u', request_type: 'opener', country_code: 'AQ', device: 'mobile', timezone: 'UTC', config: variant.config }
        : request({ config: variant.config });
    const { got } = await sent(body);
    const imp = got.body.imp[0];
    expect(imp.tagid).toBe(tagid);
    const assets = JSON.parse(imp.native.request).assets;
    const text = tagid.endsWith('_text_v1');
    expect(assets.map((a: any) => a.id)).toEqual(text ? [1, 2, 3, 5, 6] : [1, 2, 3, 4, 5, 6]);
    expect(assets.find((a: any) => a.id === 5).required).toBe(text ? 1 : 0);
    if (variant.request_type === 'opener') {
      expect(imp.ext.own).toEqual({ n_ads_before: 0, prefetched: false, request_type: 'opener' });
    }
  });

  test("title.len follows max_headline_chars; app instead of site, with the conversation's signals; IPv6; tablet; gdpr 0 outside the EEA", async () => {
    const { got } = await sent(
      request({
        config: { max_headline_chars: 45 },
        app: { id: 'app-1', bundle: 'com.example.chat', storeurl: 'https://apps.example/chat', domain: 'example.com', publisher: { name: 'ACME' } },
        ip: '2001:db8::1',
        device: 'tablet',
        country_code: 'US',
      }),
    );
    const br = got.body;
    expect(JSON.parse(br.imp[0].native.request).assets[0]).toEqual({ id: 1, required: 1, title: { len: 45 } });
    expect(br).not.toHaveProperty('site');
    expect(br.app).toEqual({
      id: 'app-1',
      privacypolicy: 1,
      publisher: { id: h.publisherId, name: 'acme', domain: 'chat.example.com' },
      cat: ['223', '225'],
      cattax: 7,
      search: 'Which shoes should I buy for my first marathon?',
      keywords: 'marathon training,cushioned running shoes',
      bundle: 'com.example.chat',
      storeurl: 'https://apps.example/chat',
      domain: 'example.com',
    });
    expect(br.device).toEqual({ ua: BROWSER_UA, ipv6: '2001:db8::1', devicetype: 5, js: 1, language: 'en', geo: { country: 'USA', type: 2 } });
    expect(br.regs).toEqual({ gdpr: 0 });
    expect(br).not.toHaveProperty('bcat');
    expect(br).not.toHaveProperty('badv');
  });

  test('device.language falls back to the Accept-Language header when the conversation is too short to tell; site.id to our publisher id; UK and Switzerland are GDPR', async () => {
    const tooShort = [
      { role: 'user', content: 'ok?' },
      { role: 'assistant', content: 'Sure.' },
    ];
    for (const [country, iso3] of [
      ['GB', 'GBR'],
      ['CH', 'CHE'],
      ['NO', 'NOR'],
    ]) {
      const { got } = await sent(request({ country_code: country, messages: tooShort }), { 'accept-language': 'fr-CH,fr;q=0.9' });
      expect(got.body.device.language).toBe('fr');
      expect(got.body.device.geo.country).toBe(iso3);
      expect(got.body.regs.gdpr).toBe(1);
      const pub = await h.db.publisher.findUniqueOrThrow({ where: { publicId: h.publisherId } });
      expect(got.body.site.id).toBe(pub.id);
      ref.dsp.received.length = 0;
    }
  });

  test('per-DSP override ids win; URL-embedded auth sends no Authorization header', async () => {
    const other = await addReferenceDsp(
      h,
      'openrtb',
      { noBidRate: 1, key: null },
      { authStyle: 'url', siteIdOverride: 'site-override', publisherIdOverride: 'pub-override' },
    );
    try {
      await sent(request({ site: { id: 'bot-42' } }));
      const got = other.dsp.received.find((r) => r.path === '/openrtb')!;
      expect(got.headers.authorization).toBeUndefined();
      expect(got.body.site.id).toBe('site-override');
      expect(got.body.site.publisher.id).toBe('pub-override');
      expect(got.body.source.schain.nodes[0].sid).toBe(h.publisherId);
    } finally {
      await dropReferenceDsp(h, other);
    }
  });

  // docs/signals.md: what the conversation is about, made by the auction, field by field; the log keeps categories and language.
  test("the conversation's signals: site.search resolves a follow-up, keywords, cat + cattax 7 (tier 1 first), device.language detected over the Accept-Language header; no personal data; logged", async () => {
    const messages = [
      { role: 'user', content: 'Wir bekommen nächste Woche einen Welpen.' },
      { role: 'assistant', content: 'Wie schön! Welche Rasse?' },
      { role: 'user', content: 'Einen Labrador. Ab wann sollte er in die Hundeschule? Ruf mich an: 0171 2345678 oder max.mustermann@example.de' },
      { role: 'assistant', content: 'Welpengruppen beginnen meist ab der 9. Woche; früh anfangen hilft bei der Sozialisierung.' },
    ];
    const before = await signalMetrics();
    const { res, got } = await sent(request({ country_code: 'DE', messages }), { 'accept-language': 'fr-CH,fr;q=0.9' });
    const { site, device } = got.body;
    // The latest question as asked, led by what it points back at (the user's puppy, the assistant's question about the breed); the phone number's sentence left out.
    expect(site.search).toBe('bekommen welpen rasse: Einen Labrador. Ab wann sollte er in die Hundeschule?');
    const keywords = site.keywords.split(',');
    expect(keywords.slice(0, 2)).toEqual(['hundeschule', 'labrador']);
    expect(keywords).toContain('welpen');
    expect(keywords.length).toBeLessThanOrEqual(10);
    expect(site.cat).toEqual(['422']); // Pets
    expect(site.cattax).toBe(7);
    expect(device.language).toBe('de');
    const sentText = JSON.stringify(got.body);
    for (const personal of ['2345678', '0171', 'mustermann', 'example.de']) expect(sentText).not.toContain(personal);

    await h.auction.deps.log.flush();
    const ch = createClickhouse();
    try {
      const rows = await (
        await ch.query({ query: sql`SELECT categories, language FROM auctions WHERE auction_id = ${res.body.auction_id}`, format: 'JSONEachRow' })
      ).json<{ categories: string[]; language: string }>();
      expect(rows).toEqual([{ categories: ['422'], language: 'de' }]);
    } finally {
      await ch.close();
    }
    // Counted: the language from the conversation, the first category Pets.
    const after = await signalMetrics();
    expect(after.conversation - before.conversation).toBe(1);
    expect(after.pets - before.pets).toBe(1);
  });

  /** The auction's signal counters (docs/signals.md): auctions whose language was detected, and whose first category is Pets (422). */
  async function signalMetrics() {
    const text = await (await fetch(h.metricsUrl)).text();
    const read = (series: string) => Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
    return { conversation: read('auction_signal_language_total{source="conversation"}'), pets: read('auction_signal_category_total{category="422"}') };
  }

  test("the host's own language and search win over the conversation's; an opener carries only the header's language", async () => {
    const { got } = await sent(request({ language: 'it', site: { id: 'bot-1', search: 'host query' } }), { 'accept-language': 'fr' });
    expect(got.body.device.language).toBe('it');
    expect(got.body.site.search).toBe('host query');
    ref.dsp.received.length = 0;
    const opener = await sent(
      { userId: 'u', request_type: 'opener', country_code: 'AQ', device: 'mobile', timezone: 'UTC', config: { image_enabled: true } },
      { 'accept-language': 'sv-SE' },
    );
    expect(opener.got.body.device.language).toBe('sv');
    for (const field of ['search', 'keywords', 'cat', 'cattax']) expect(opener.got.body.site).not.toHaveProperty(field);
  });
});

describe('BidResponse handling', () => {
  const ref = useReferenceDsp(h, 'openrtb', { price: 1.5 });
  beforeEach(() => {
    ref.dsp.set({ respond: undefined, fault: 'none', creative: 'image', price: 1.5, noBidRate: 0 });
    h.auction.deps.health.record(ref.dspId, null);
  });
  const record = async (res: any) => (await loggedBids(h, res.body.auction_id)).find((r) => r.bidder_id === ref.dspId);

  const adm = (assets: unknown[], extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      native: {
        ver: '1.2',
        assets,
        link: { url: 'https://click.dsp.example/c' },
        eventtrackers: [{ event: 1, method: 1, url: 'https://t.dsp.example/v' }],
        ...extra,
      },
    });
  const baseAssets = (o: { title?: string; desc?: string; brand?: string; cta?: string } = {}) => [
    { id: 1, title: { text: o.title ?? 'Run your best race' } },
    { id: 2, data: { value: o.desc ?? 'Light trainers' } },
    { id: 3, data: { value: o.brand ?? 'Shoes Inc' } },
    { id: 6, data: { value: o.cta ?? 'Shop now' } },
  ];
  const image = (w = 1200, h2 = 628, url = 'https://cdn.dsp.example/i.jpg') => ({ id: 4, img: { url, w, h: h2 } });
  const logo = (w = 200, h2 = 200, url = 'https://cdn.dsp.example/l.png') => ({ id: 5, img: { url, w, h: h2 } });
  const answer =
    (admValue: string, price: unknown = 1.5) =>
    (path: string, body: any) =>
      path === '/openrtb'
        ? { status: 200, body: { id: body.id, seatbid: [{ seat: 's', bid: [{ id: 'bid-1', impid: '1', price, adm: admValue, adomain: ['shoes.example'] }] }] } }
        : undefined;

  test('a valid image bid serves as a sponsored_message with our tracking URLs', async () => {
    ref.dsp.set({ respond: answer(adm([...baseAssets(), image(), logo()]), 1.555) });
    const res = await adRequest(h, request());
    expect(res.body.ad).toEqual({
      format: 'sponsored_message',
      placement: 'image',
      headline: 'Run your best race',
      description: 'Light trainers',
      advertiser: 'Shoes Inc',
      cta_text: 'Shop now',
      image_url: 'https://cdn.dsp.example/i.jpg',
      logo_url: 'https://cdn.dsp.example/l.png',
      domain: 'shoes.example',
      url: expect.stringContaining('/api/v1/tracking/click?token='),
      view_url: expect.stringContaining('/api/v1/tracking/view?token='),
      feedback_url: expect.stringContaining('/api/v1/tracking/feedback?token='),
      price: 1.56,
      // From the conversation's categories only (domain/privacy/why-this-ad.ts).
      why_this_ad: 'Shown because this conversation is about Fitness and Exercise (Healthy Living).',
    });
    expect(await record(res)).toMatchObject({ outcome: 'won', bid_id: 'bid-1', price_micros: 1_560_000 });
  });

  test('a logo-only bid on an image slot serves as text placement', async () => {
    ref.dsp.set({ respond: answer(adm([...baseAssets(), logo()])) });
    const res = await adRequest(h, request());
    expect(res.body.ad).toMatchObject({ placement: 'text', logo_url: 'https://cdn.dsp.example/l.png' });
    expect(res.body.ad).not.toHaveProperty('image_url');
  });

  test('an image on a _text_v1 slot is dropped; with a logo the bid serves as text, without one it is lost', async () => {
    ref.dsp.set({ respond: answer(adm([...baseAssets(), image(), logo()])) });
    let res = await adRequest(h, request({ config: { image_enabled: false } }));
    expect(res.body.ad).toMatchObject({ placement: 'text', logo_url: 'https://cdn.dsp.example/l.png' });
    expect(res.body.ad).not.toHaveProperty('image_url');
    ref.dsp.set({ respond: answer(adm([...baseAssets(), image()])) });
    res = await adRequest(h, request({ config: { image_enabled: false } }));
    expect(res.body.ad).toBeNull();
    expect(await record(res)).toMatchObject({ reason: 'dsp_invalid_text_bid', seat_non_bid_code: 353 });
  });

  test.each<[string, (path: string, body: any) => { status: number; body?: unknown } | undefined]>([
    ['HTTP 204', () => ({ status: 204 })],
    ['{}', () => ({ status: 200, body: {} })],
    ['an empty body', () => ({ status: 200, body: '' })],
    ['empty seatbid', (_p, b) => ({ status: 200, body: { id: b.id, seatbid: [] } })],
    ['a seat with no bids', (_p, b) => ({ status: 200, body: { id: b.id, seatbid: [{ bid: [] }] } })],
    ['nbr', (_p, b) => ({ status: 200, body: { id: b.id, nbr: 2 } })],
    ['no seatbid', (_p, b) => ({ status: 200, body: { id: b.id } })],
  ])('no-bid form %s: no_bid', async (_label, respond) => {
    ref.dsp.set({ respond });
    const res = await adRequest(h, request());
    expect(res.body.ad).toBeNull();
    expect(await record(res)).toMatchObject({ outcome: 'rejected', reason: 'no_bid', seat_non_bid_code: 0 });
  });

  test.each<[string, string, string, unknown?]>([
    ['asset 1 (title) missing', adm([...baseAssets().filter((a) => a.id !== 1), image()]), 'missing_required_asset'],
    ['asset 2 (description) missing', adm([...baseAssets().filter((a) => a.id !== 2), image()]), 'missing_required_asset'],
    ['asset 3 (sponsored-by) missing', adm([...baseAssets().filter((a) => a.id !== 3), image()]), 'missing_required_asset'],
    ['asset 6 (CTA) missing', adm([...baseAssets().filter((a) => a.id !== 6), image()]), 'missing_required_asset'],
    ['title over title.len (90)', adm([...baseAssets({ title: 'x'.repeat(91) }), image()]), 'asset_too_long'],
    ['description over 200', adm([...baseAssets({ desc: 'x'.repeat(201) }), image()]), 'asset_too_long'],
    ['sponsored-by over 50', adm([...baseAssets({ brand: 'x'.repeat(51) }), image()]), 'asset_too_long'],
    ['CTA over 15', adm([...baseAssets({ cta: 'x'.repeat(16) }), image()]), 'asset_too_long'],
    ['main image under 400x400', adm([...baseAssets(), image(399, 628)]), 'image_too_small'],
    ['logo under 100x100', adm([...baseAssets(), logo(99, 99)]), 'image_too_small'],
    ['http image with secure=1', adm([...baseAssets(), image(1200, 628, 'http://cdn.dsp.example/i.jpg')]), 'not_secure'],
    ['http click URL', adm([...baseAssets(), image()], { link: { url: 'http://click.dsp.example/c' } }), 'not_secure'],
    ['http impression tracker', adm([...baseAssets(), image()], { eventtrackers: [{ event: 1, method: 1, url: 'http://t.dsp.example/v' }] }), 'not_secure'],
    ['a click URL with user info', adm([...baseAssets(), image()], { link: { url: 'https://u:p@click.dsp.example/c' } }), 'invalid_ad_data'],
    ['a title with a lone surrogate', adm([...baseAssets({ title: 'Run \ud800' }), image()]), 'invalid_ad_data'],
    ['neither image nor logo', adm(baseAssets()), 'dsp_invalid_image_bid'],
    ['no link', JSON.stringify({ native: { assets: [...baseAssets(), image()] } }), 'invalid_ad_data'],
    ['adm not JSON', 'not json', 'invalid_ad_data'],
    ['price below the floor (0.25)', adm([...baseAssets(), image()]), 'below_floor', 0.24],
    ['negative price', adm([...baseAssets(), image()]), 'invalid_response', -1],
  ])('%s: %s', async (_label, admValue, reason, price = 1.5) => {
    ref.dsp.set({ respond: answer(admValue, price) });
    const res = await adRequest(h, request());
    expect(res.body.ad).toBeNull();
    expect(await record(res)).toMatchObject({ outcome: 'rejected', reason });
  });

  test('image sizes are only checked when w/h are given', async () => {
    ref.dsp.set({ respond: answer(adm([...baseAssets(), { id: 4, img: { url: 'https://cdn.dsp.example/i.jpg' } }])) });
    const res = await adRequest(h, request());
    expect(res.body.ad).toMatchObject({ placement: 'image' });
  });

  test.each<[string, (path: string, body: any) => { status: number; body?: unknown }, string]>([
    ['a wrong id echo', () => ({ status: 200, body: { id: 'other', seatbid: [{ bid: [{ id: 'b', impid: '1', price: 1, adm: '{}' }] }] } }), 'invalid_response'],
    ['garbage JSON', () => ({ status: 200, body: '{"id": ' }), 'invalid_response'],
    [
      'a bid for another imp',
      (_p, b) => ({ status: 200, body: { id: b.id, seatbid: [{ bid: [{ id: 'b', impid: '2', price: 1, adm: '{}' }] }] } }),
      'invalid_response',
    ],
    ['HTTP 400 (version not supported)', () => ({ status: 400, body: { error: 'no' } }), 'dsp_http_error'],
  ])('%s: %s', async (_label, respond, reason) => {
    ref.dsp.set({ respond });
    const res = await adRequest(h, request());
    expect(await record(res)).toMatchObject({ reason });
  });

  test("the reference DSP's own OpenRTB answers serve in every mode", async () => {
    for (const body of [
      request(),
      request({ config: { image_enabled: false } }),
      { userId: 'u', request_type: 'opener', country_code: 'AQ', device: 'mobile', timezone: 'UTC' },
    ]) {
      const res = await adRequest(h, body);
      expect(res.body.ad).toMatchObject({ format: 'sponsored_message', advertiser: 'Reference Shoes', price: 1.5 });
    }
  });
});
