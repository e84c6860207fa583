/**
 * POST /v1/ad_requests intake: publisher auth (401s) and every field rule of
 * the spec's native bid request table plus DESIGN's extras (400s with the
 * exact code and param).
 */
import { hashSecret } from '../../lib/secrets';
import { adRequest, BROWSER_UA, contextualRequest, useAuction } from './support';
import { until } from '../support/wait';

// In-house demand is switched off (a closed budget gate): other tests' campaigns never fill these auctions.
const h = useAuction({ budget: { mayServe: () => false } });

const err = (code: string, param: string | null, type = 'invalid_request_error') => ({ error: { message: expect.any(String), type, param, code } });

describe('publisher auth', () => {
  test('no Authorization header: 401 auth_required', async () => {
    const res = await adRequest(h, contextualRequest(), null);
    expect(res).toEqual({ status: 401, body: err('auth_required', null, 'authentication_error') });
  });

  test.each([
    ['an unknown key', `pk_${'A'.repeat(43)}`],
    ['a malformed key', 'not-a-key'],
    ['an advertiser key', `ak_${'B'.repeat(43)}`],
  ])('%s: 401 invalid_api_key', async (_label, key) => {
    const res = await adRequest(h, contextualRequest(), key);
    expect(res).toEqual({ status: 401, body: err('invalid_api_key', null, 'authentication_error') });
  });

  test('a non-Bearer scheme is refused', async () => {
    const res = await adRequest(h, contextualRequest(), null, { authorization: `Basic ${h.publisherKey}` });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('invalid_api_key');
  });

  test('auth is checked before the body: a bad body with no key is still 401', async () => {
    const res = await adRequest(h, '{not json', null);
    expect(res.status).toBe(401);
  });

  test('the key is stored hashed, and a disabled publisher is refused once the cache refreshes', async () => {
    const row = await h.db.publisher.findUniqueOrThrow({ where: { publicId: h.publisherId } });
    expect(row.keyHash).toBe(hashSecret(h.publisherKey));
    expect(JSON.stringify(row, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value))).not.toContain(h.publisherKey);
    expect((await adRequest(h, contextualRequest())).status).toBe(200);
    await h.db.publisher.update({ where: { id: row.id }, data: { enabled: false } });
    await until(() => !h.auction.deps.catalog.publishers.has(row.keyHash), 'the publisher cache to drop the key');
    expect((await adRequest(h, contextualRequest())).status).toBe(401);
    await h.db.publisher.update({ where: { id: row.id }, data: { enabled: true } });
    await until(() => h.auction.deps.catalog.publishers.has(row.keyHash), 'the publisher cache to add the key back');
    expect((await adRequest(h, contextualRequest())).status).toBe(200);
  });
});

describe('request validation', () => {
  const opener = { userId: 'u1', request_type: 'opener', country_code: 'US', device: 'desktop', timezone: 'Europe/Berlin' };
  const without = (key: string) => {
    const b: Record<string, unknown> = contextualRequest();
    delete b[key];
    return b;
  };
  const msgs = (...roles: string[]) => roles.map((role, i) => ({ role, content: `message ${i}` }));

  test.each<[string, unknown, string, string | null]>([
    ['userId missing', without('userId'), 'required', 'userId'],
    ['userId empty', contextualRequest({ userId: '' }), 'required', 'userId'],
    ['userId an e-mail', contextualRequest({ userId: 'jane@example.com' }), 'invalid_value', 'userId'],
    ['request_type unknown', contextualRequest({ request_type: 'banner' }), 'invalid_value', 'request_type'],
    ['chatId missing on contextual', without('chatId'), 'required', 'chatId'],
    ['chatId on an opener', { ...opener, chatId: 'c' }, 'invalid_value', 'chatId'],
    ['messages on an opener', { ...opener, messages: msgs('user', 'assistant') }, 'invalid_value', 'messages'],
    ['nAdsBefore on an opener', { ...opener, nAdsBefore: 1 }, 'invalid_value', 'nAdsBefore'],
    ['nAdsBefore negative', contextualRequest({ nAdsBefore: -1 }), 'invalid_value', 'nAdsBefore'],
    ['nAdsBefore not an integer', contextualRequest({ nAdsBefore: 1.5 }), 'invalid_value', 'nAdsBefore'],
    ['messages missing on contextual', without('messages'), 'required', 'messages'],
    ['messages not an array', contextualRequest({ messages: 'hi' }), 'invalid_value', 'messages'],
    ['one message only', contextualRequest({ messages: msgs('user') }), 'invalid_value', 'messages'],
    ['roles not alternating', contextualRequest({ messages: msgs('user', 'user', 'assistant') }), 'invalid_value', 'messages[1].role'],
    ['ending with a user message', contextualRequest({ messages: msgs('assistant', 'user') }), 'invalid_value', 'messages'],
    [
      'ending user, assistant but starting anywhere is fine: 3 messages ending wrong',
      contextualRequest({ messages: msgs('user', 'assistant', 'user') }),
      'invalid_value',
      'messages',
    ],
    [
      'message role unknown',
      contextualRequest({
        messages: [
          { role: 'system', content: 'x' },
          { role: 'assistant', content: 'y' },
        ],
      }),
      'invalid_value',
      'messages[0].role',
    ],
    ['message content missing', contextualRequest({ messages: [{ role: 'user' }, { role: 'assistant', content: 'y' }] }), 'required', 'messages[0].content'],
    [
      'message timestamp not ISO 8601',
      contextualRequest({
        messages: [
          { role: 'user', content: 'x', timestamp: 'yesterday' },
          { role: 'assistant', content: 'y' },
        ],
      }),
      'invalid_value',
      'messages[0].timestamp',
    ],
    [
      'message unknown field',
      contextualRequest({
        messages: [
          { role: 'user', content: 'x', name: 'n' },
          { role: 'assistant', content: 'y' },
        ],
      }),
      'invalid_value',
      'messages[0].name',
    ],
    ['ad_formats unknown value', contextualRequest({ ad_formats: ['banner'] }), 'invalid_value', 'ad_formats[0]'],
    ['ad_formats empty', contextualRequest({ ad_formats: [] }), 'required', 'ad_formats'],
    ['ad_formats repeated', contextualRequest({ ad_formats: ['poll', 'poll'] }), 'invalid_value', 'ad_formats'],
    ['prefetched not a boolean', contextualRequest({ prefetched: 'yes' }), 'invalid_value', 'prefetched'],
    ['request_id not a string', contextualRequest({ request_id: 5 }), 'invalid_value', 'request_id'],
    ['country_code missing', without('country_code'), 'required', 'country_code'],
    ['country_code not ISO alpha-2', contextualRequest({ country_code: 'XX' }), 'invalid_value', 'country_code'],
    ['country_code alpha-3', contextualRequest({ country_code: 'USA' }), 'invalid_value', 'country_code'],
    ['region not a string', contextualRequest({ region: 7 }), 'invalid_value', 'region'],
    ['city not a string', contextualRequest({ city: false }), 'invalid_value', 'city'],
    ['device missing', without('device'), 'required', 'device'],
    ['device unknown', contextualRequest({ device: 'watch' }), 'invalid_value', 'device'],
    ['timezone missing', without('timezone'), 'required', 'timezone'],
    ['timezone not IANA', contextualRequest({ timezone: 'Mars/Olympus' }), 'invalid_value', 'timezone'],
    ['timezone over 64 characters', contextualRequest({ timezone: `America/${'x'.repeat(57)}` }), 'string_too_long', 'timezone'],
    ['timezone of 200 KB', contextualRequest({ timezone: 'Z'.repeat(200_000) }), 'string_too_long', 'timezone'],
    ['max_headline_chars under 30', contextualRequest({ config: { max_headline_chars: 29 } }), 'invalid_value', 'config.max_headline_chars'],
    ['max_headline_chars not an integer', contextualRequest({ config: { max_headline_chars: 40.5 } }), 'invalid_value', 'config.max_headline_chars'],
    ['image_enabled not a boolean', contextualRequest({ config: { image_enabled: 'no' } }), 'invalid_value', 'config.image_enabled'],
    ['config unknown field', contextualRequest({ config: { theme: 'dark' } }), 'invalid_value', 'config.theme'],
    ['ip not an address', contextualRequest({ ip: '999.1.1.1' }), 'invalid_value', 'ip'],
    ['user_agent with a control character (it becomes a header)', contextualRequest({ user_agent: 'Mozilla/5.0\u0007' }), 'invalid_value', 'user_agent'],
    ['language not ISO 639-1', contextualRequest({ language: 'english' }), 'invalid_value', 'language'],
    ['site and app together', contextualRequest({ site: { domain: 'a.example' }, app: { bundle: 'com.a' } }), 'invalid_value', 'app'],
    ['site.page not a URL', contextualRequest({ site: { page: 'nope' } }), 'invalid_value', 'site.page'],
    ['site.cat not a taxonomy id', contextualRequest({ site: { cat: ['IAB-1!'] } }), 'invalid_value', 'site.cat[0]'],
    ['tmax above 2000', contextualRequest({ tmax: 2001 }), 'invalid_value', 'tmax'],
    ['tmax below 50', contextualRequest({ tmax: 10 }), 'invalid_value', 'tmax'],
    ['tmax not an integer', contextualRequest({ tmax: 'fast' }), 'invalid_value', 'tmax'],
    ['unknown top-level field', contextualRequest({ adunit: 'x' }), 'invalid_value', 'adunit'],
  ])('%s: 400 %s on %s', async (_label, body, code, param) => {
    const res = await adRequest(h, body);
    expect(res).toEqual({ status: 400, body: err(code, param) });
  });

  test("malformed JSON: 400 invalid_json; a non-object body: 400 invalid_value; another content type: 415 (the api's codes)", async () => {
    expect(await adRequest(h, '{"userId":')).toEqual({ status: 400, body: err('invalid_json', null) });
    expect(await adRequest(h, '[1,2]')).toEqual({ status: 400, body: err('invalid_value', null) });
    const res = await fetch(`${h.url}/v1/ad_requests`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.publisherKey}`, 'content-type': 'text/plain' },
      body: 'hello',
    });
    expect(res.status).toBe(415);
    expect(((await res.json()) as any).error.code).toBe('unsupported_media_type');
  });

  test('a plain body (JSON with a Content-Length, read directly) and any other (here: chunked, read by body-parser) answer alike', async () => {
    const send = async (body: string, token: string | null, chunked: boolean) => {
      const stream = new ReadableStream({
        start(c) {
          c.enqueue(new TextEncoder().encode(body));
          c.close();
        },
      });
      const res = await fetch(`${h.url}/v1/ad_requests`, {
        method: 'POST',
        duplex: 'half',
        body: chunked ? stream : body,
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      });
      return { status: res.status, type: res.headers.get('content-type'), body: (await res.text()).replace(/"auction_id":"[^"]+"/, '"auction_id":"?"') };
    };
    const valid = JSON.stringify(contextualRequest({ country_code: 'AQ' }));
    const bodies = [valid, `\uFEFF${valid}`, ` \n${valid}`, '[1]', '"x"', '   ', '{bad', '{}', valid.replace('"AQ"', '"ZZ"')];
    for (const token of [h.publisherKey, `pk_${'A'.repeat(43)}`, null]) {
      for (const body of bodies) {
        const direct = await send(body, token, false);
        expect({ sent: body, token, ...(await send(body, token, true)) }).toEqual({ sent: body, token, ...direct });
      }
    }
    expect((await send(valid, h.publisherKey, false)).status).toBe(200);
  });

  test('other methods on the path: 405 with Allow', async () => {
    const res = await fetch(`${h.url}/v1/ad_requests`, { headers: { authorization: `Bearer ${h.publisherKey}` } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST, OPTIONS');
  });

  test('valid contextual and opener requests with defaults: 200 with an auction id (no demand: ad null)', async () => {
    for (const body of [contextualRequest({ country_code: 'aq' }), { ...opener, country_code: 'AQ' }]) {
      const res = await adRequest(h, body);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ auction_id: expect.stringMatching(/^[0-9a-f-]{36}$/), ad: null, no_fill_reason: 'no_bids' });
    }
  });

  test('every optional field accepted', async () => {
    const res = await adRequest(
      h,
      contextualRequest({
        country_code: 'AQ',
        request_type: 'contextual',
        nAdsBefore: 2,
        prefetched: true,
        request_id: 'r-1',
        region: 'NY',
        city: 'New York',
        ad_formats: ['sponsored_message', 'sponsored_carousel', 'poll'],
        config: { max_headline_chars: 30, image_enabled: false },
        ip: '::1',
        user_agent: BROWSER_UA,
        language: 'EN',
        site: {
          id: 'bot-1',
          domain: 'chat.example',
          page: 'https://chat.example/c',
          publisher: { name: 'X', domain: 'x.example' },
          cat: ['483', 'v9i3On'],
          search: 'q',
          keywords: 'a,b',
        },
        tmax: 500,
        bcat: ['IAB25'],
        badv: ['blocked.example'],
        messages: [
          { role: 'user', content: 'a', timestamp: '2026-11-23T10:00:00Z' },
          { role: 'assistant', content: 'b', timestamp: 1795000000 },
        ],
      }),
    );
    expect(res.status).toBe(200);
  });

  test('unknown paths: 404 in the error object', async () => {
    const res = await fetch(`${h.url}/v1/nothing`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual(err('not_found', null));
  });
});
