import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { config } from '../../lib/config';
import { geoLookup } from '../../domain/events/geo';
import { clientIp } from '../../domain/events/client-ip';
import { defaultChunk, leasedBudget } from '../../domain/events/budget-lease';
import { hostOf, parseUserAgent } from '../../domain/events/enrich';
import { call, errorBody, useHarness } from '../support/harness';
import { eventually } from '../support/wait';
import { apiKeyIdOf, clickhouse, keyedOrg, storedEvents, waitForEvents } from './support';

const IPHONE_UA = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const DESKTOP_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';

const h = useHarness([clickhouse]);

const org = () => keyedOrg(h.db);
const collect = (key: string | undefined, body: unknown, path = '/api/collect', headers?: Record<string, string>) =>
  call(h.url, 'POST', path, { token: key, body, headers });
/** Events sent after the ones under test: once it is stored, the pipeline has passed them. */
async function sentinel(key: string, orgId: string) {
  const name = `sentinel_${randomUUID()}`;
  expect((await collect(key, { event_name: name })).status).toBe(204);
  return waitForEvents(orgId, (rows) => rows.some((r) => r.event_name === name));
}

describe('POST /api/collect', () => {
  it('204 with no body; stored once in ClickHouse, enriched', async () => {
    const { key, id } = await org();
    const before = Math.floor(Date.now() / 1000);
    const res = await collect(key, {
      event_name: 'purchase',
      event_id: 'ord-1',
      page_url: 'https://shop.example.com/checkout?x=1',
      user_agent: IPHONE_UA,
      channel: 'web',
      params: { value: 42.5, currency: 'USD', items: [1, 2] },
      consent: { ad_storage: 'granted' },
      click_id: 'clk_1',
      attribution_type: 'click',
      session_id: 's1',
      client_id: 'c1',
      referrer: 'https://search.example/',
      unknown_field: 'ignored',
    });
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    const [row] = await waitForEvents(id, (rows) => rows.length === 1);
    expect(row).toMatchObject({
      organization_id: id,
      event_id: 'ord-1',
      event_name: 'purchase',
      channel: 'server',
      tag_id: 'shop.example.com',
      ip_address: '127.0.0.1',
      ua_browser: 'Mobile Safari',
      ua_os: 'iOS',
      ua_device: 'mobile',
      click_id: 'clk_1',
      attribution_type: 'click',
      session_id: 's1',
      client_id: 'c1',
      referrer: 'https://search.example/',
      geo_country: '',
      geo_lat: null, // loopback has no location
    });
    expect(JSON.parse(row.consent)).toEqual({ ad_storage: 'granted' });
    expect(row).not.toHaveProperty('unknown_field');
    const stamped = Math.floor(new Date(`${row.timestamp.replace(' ', 'T')}Z`).getTime() / 1000);
    expect(stamped).toBeGreaterThanOrEqual(before);
    expect(stamped).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    // params are JSON, queryable (18.16 has the visitParam* JSON functions; JSONExtract* came in 19.x).
    const q = await clickhouse.query({
      query: `SELECT visitParamExtractFloat(params, 'value') AS value, visitParamExtractString(params, 'currency') AS currency
              FROM collected_events WHERE organization_id = '${id}'`,
      format: 'JSONEachRow',
    });
    expect(await q.json()).toEqual([{ value: 42.5, currency: 'USD' }]);
  });

  it('keeps a sent timestamp and tag_id; a desktop UA reads desktop', async () => {
    const { key, id } = await org();
    expect(
      (await collect(key, { event_name: 'lead', timestamp: 1_700_000_000.9, tag_id: 'tag_42', page_url: 'https://a.example/', user_agent: DESKTOP_UA })).status,
    ).toBe(204);
    const [row] = await waitForEvents(id, (rows) => rows.length === 1);
    expect(row).toMatchObject({ timestamp: '2023-11-14 22:13:20', tag_id: 'tag_42', ua_browser: 'Chrome', ua_os: 'Windows', ua_device: 'desktop' });
  });

  it('401 in the /v1 error object without a valid key', async () => {
    const none = await collect(undefined, { event_name: 'x' });
    expect(none.status).toBe(401);
    expect(none.body).toEqual(errorBody('auth_required', 'authentication_error'));
    const bad = await collect('ak_not-a-real-key-000000000000000000000000000000', { event_name: 'x' });
    expect(bad.status).toBe(401);
    expect(bad.body).toEqual(errorBody('invalid_api_key', 'authentication_error'));
  });

  it('a revoked key stops working (after the few seconds its check is remembered)', async () => {
    const { key, id } = await org();
    expect((await collect(key, { event_name: 'before' })).status).toBe(204);
    await h.db.apiKey.updateMany({ where: { organizationId: id }, data: { revokedAt: new Date() } });
    const res = await eventually(
      () => collect(key, { event_name: 'after' }),
      (answer) => answer.status !== 204,
      { everyMs: 250 },
    );
    expect(res.status).toBe(401);
    expect(res.body).toEqual(errorBody('invalid_api_key', 'authentication_error'));
  });

  it('400 for a non-object body or a bad event_name; 413 oversized; 415 other content types', async () => {
    const { key } = await org();
    for (const body of [[{ event_name: 'x' }], 'purchase', 42, null]) {
      const res = await call(h.url, 'POST', '/api/collect', { token: key, rawBody: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(errorBody('invalid_value'));
    }
    const empty = await call(h.url, 'POST', '/api/collect', { token: key });
    expect(empty.status).toBe(400);
    expect(empty.body).toEqual(errorBody('invalid_value'));
    for (const body of [{}, { event_name: '' }, { event_name: null }]) {
      const res = await collect(key, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(errorBody('required', 'invalid_request_error', 'event_name'));
    }
    for (const [body, param] of [
      [{ event_name: 5 }, 'event_name'],
      [{ event_name: ['a'] }, 'event_name'],
      [{ event_name: 'x', timestamp: '2024-01-01' }, 'timestamp'],
      [{ event_name: 'x', params: [1] }, 'params'],
      [{ event_name: 'x', consent: 'yes' }, 'consent'],
      [{ event_name: 'x', attribution_type: 'email' }, 'attribution_type'],
      [{ event_name: 'x', click_id: 7 }, 'click_id'],
    ] as const) {
      const res = await collect(key, body);
      expect({ body, status: res.status, error: res.body }).toEqual({ body, status: 400, error: errorBody('invalid_value', 'invalid_request_error', param) });
    }
    const malformed = await call(h.url, 'POST', '/api/collect', { token: key, rawBody: '{"event_name":', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual(errorBody('invalid_json'));

    const huge = await collect(key, { event_name: 'x', params: { blob: 'a'.repeat(1024 * 1024 + 1) } });
    expect(huge.status).toBe(413);
    expect(huge.body).toEqual(errorBody('body_too_large'));

    const text = await call(h.url, 'POST', '/api/collect', {
      token: key,
      rawBody: 'event_name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(text.status).toBe(415);
    expect(text.body).toEqual(errorBody('unsupported_media_type'));
  });

  it("answers a remembered key's request exactly as its first one", async () => {
    const { key, id } = await org();
    const answers = [];
    for (let i = 0; i < 2; i++) {
      const res = await collect(key, { event_name: `lane_${i}` });
      answers.push({
        status: res.status,
        body: res.body,
        requestId: /^req_/.test(res.headers.get('request-id') ?? ''),
        limit: res.headers.get('x-ratelimit-limit'),
        reset: res.headers.get('x-ratelimit-reset') !== null,
      });
    }
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[0]).toEqual({ status: 204, body: null, requestId: true, limit: String(config.events.perKeyPerHour), reset: true });
    // Errors too: the same error object and headers.
    const malformed = await call(h.url, 'POST', '/api/collect', { token: key, rawBody: '{', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual(errorBody('invalid_json'));
    expect(malformed.headers.get('request-id')).toMatch(/^req_/);
    await waitForEvents(id, (rows) => rows.length === 2);
  });

  it('reads plain, BOM-prefixed, charset-labelled and gzip-compressed JSON bodies alike', async () => {
    const { key, id } = await org();
    const send = (rawBody: string | Buffer, headers: Record<string, string>) =>
      call(h.url, 'POST', '/api/collect', { token: key, rawBody, headers: { 'content-type': 'application/json', ...headers } });
    const event = (name: string) => JSON.stringify({ event_name: name });
    expect((await send(event('plain'), {})).status).toBe(204);
    expect((await send(`\ufeff${event('bom')}`, {})).status).toBe(204);
    expect((await send(event('charset'), { 'content-type': 'application/json; charset=utf-8' })).status).toBe(204);
    expect((await send(gzipSync(event('gzip')), { 'content-encoding': 'gzip' })).status).toBe(204);
    for (const headers of [{}, { 'content-type': 'application/json; charset=utf-8' }] as Record<string, string>[]) {
      const malformed = await send('{"event_name": "x"', headers);
      expect({ status: malformed.status, body: malformed.body }).toEqual({ status: 400, body: errorBody('invalid_json') });
    }
    const latin1 = await send(event('latin1'), { 'content-type': 'application/json; charset=latin1' });
    expect({ status: latin1.status, body: latin1.body }).toEqual({ status: 415, body: errorBody('unsupported_media_type') });
    const rows = await waitForEvents(id, (r) => r.length === 4);
    expect(rows.map((r) => r.event_name).sort()).toEqual(['bom', 'charset', 'gzip', 'plain']);
  });

  it('429 with Retry-After once the key has spent its event budget (own bucket)', async () => {
    const { key, id } = await org();
    const apiKeyId = await apiKeyIdOf(h.db, id);
    const windowStart = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
    await h.db.rateLimitCounter.create({ data: { bucket: `events:${apiKeyId}`, windowStart, count: config.events.perKeyPerHour } });
    const res = await collect(key, { event_name: 'x' });
    expect(res.status).toBe(429);
    expect(res.body).toEqual(errorBody('rate_limit_exceeded', 'rate_limit_error'));
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    // The /v1 budget is another bucket: untouched.
    expect(await h.db.rateLimitCounter.count({ where: { bucket: `all:${apiKeyId}` } })).toBe(0);
    // A refused event is not counted and not stored.
    const counter = await h.db.rateLimitCounter.findUniqueOrThrow({ where: { bucket_windowStart: { bucket: `events:${apiKeyId}`, windowStart } } });
    expect(counter.count).toBe(config.events.perKeyPerHour);
    expect(await h.db.eventInbox.count({ where: { organizationId: id } })).toBe(0);
    expect(await storedEvents(id)).toEqual([]);
  });

  it('counts accepted events in the events bucket, reserved in chunks', async () => {
    const { key, id } = await org();
    const apiKeyId = await apiKeyIdOf(h.db, id);
    expect((await collect(key, { event_name: 'a' })).status).toBe(204);
    expect((await collect(key, { events: [{ event_name: 'b' }, { event_name: 'c' }, { nope: 1 }] })).status).toBe(200);
    const counters = await h.db.rateLimitCounter.findMany({ where: { bucket: `events:${apiKeyId}` } });
    // One chunk reserved (1% of the hourly limit) covers all three events.
    expect(counters.reduce((n, c) => n + c.count, 0)).toBe(defaultChunk(config.events.perKeyPerHour));
    expect(await h.db.rateLimitCounter.count({ where: { bucket: `all:${apiKeyId}` } })).toBe(0);
  });
});

describe('batch form and validate_only', () => {
  it('stores the valid events of a batch and reports each', async () => {
    const { key, id } = await org();
    const res = await collect(key, {
      events: [{ event_name: 'a', event_id: 'b1' }, { event_name: '' }, 'x', { event_name: 'c', timestamp: -1 }, { event_name: 'd' }],
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      validate_only: false,
      accepted: 2,
      rejected: 3,
      results: [
        { index: 0, status: 'accepted' },
        { index: 1, status: 'rejected', error: { code: 'required', message: expect.any(String), param: 'events[1].event_name' } },
        { index: 2, status: 'rejected', error: { code: 'invalid_value', message: expect.any(String), param: 'events[2]' } },
        { index: 3, status: 'rejected', error: { code: 'invalid_value', message: expect.any(String), param: 'events[3].timestamp' } },
        { index: 4, status: 'accepted' },
      ],
    });
    const rows = await waitForEvents(id, (r) => r.length >= 2);
    expect(rows.map((r) => r.event_name)).toEqual(['a', 'd']);
  });

  it('400 for an empty, non-array or over-1000 events list', async () => {
    const { key } = await org();
    for (const events of [[], 'x', Array.from({ length: 1001 }, () => ({ event_name: 'x' }))]) {
      const res = await collect(key, { events });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(errorBody('invalid_value', 'invalid_request_error', 'events'));
    }
    expect((await collect(key, { events: Array.from({ length: 1000 }, (_, i) => ({ event_name: `e${i}` })) })).body.accepted).toBe(1000);
  });

  it('validate_only checks and stores nothing', async () => {
    const { key, id } = await org();
    expect((await collect(key, { event_name: 'checked_only' }, '/api/collect?validate_only=true')).status).toBe(204);
    const bad = await collect(key, { event_name: 7 }, '/api/collect?validate_only=true');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual(errorBody('invalid_value', 'invalid_request_error', 'event_name'));
    const batch = await collect(key, { events: [{ event_name: 'checked_only' }, {}] }, '/api/collect?validate_only=true');
    expect(batch.status).toBe(200);
    expect(batch.body).toMatchObject({
      validate_only: true,
      accepted: 0,
      rejected: 1,
      results: [
        { index: 0, status: 'valid' },
        { index: 1, status: 'rejected' },
      ],
    });
    const rows = await sentinel(key, id);
    expect(rows.filter((r) => r.event_name === 'checked_only')).toEqual([]);
  });
});

describe('deduplication by event_id', () => {
  it('stores an event_id once per organization, within and across batches', async () => {
    const a = await org();
    const b = await org();
    expect(
      (
        await collect(a.key, {
          events: [
            { event_name: 'p', event_id: 'dup' },
            { event_name: 'p', event_id: 'dup' },
            { event_name: 'p', event_id: 'other' },
          ],
        })
      ).status,
    ).toBe(200);
    await sentinel(a.key, a.id); // the first batch has reached ClickHouse
    // Retries of the same event later, in other requests and batches.
    expect((await collect(a.key, { event_name: 'p', event_id: 'dup' })).status).toBe(204);
    await Promise.all(Array.from({ length: 10 }, () => collect(a.key, { event_name: 'p', event_id: 'other' })));
    // Another organization's event_id space is its own.
    expect((await collect(b.key, { event_name: 'p', event_id: 'dup' })).status).toBe(204);
    const rows = await sentinel(a.key, a.id);
    expect(rows.filter((r) => r.event_id === 'dup')).toHaveLength(1);
    expect(rows.filter((r) => r.event_id === 'other')).toHaveLength(1);
    expect((await waitForEvents(b.id, (r) => r.length === 1)).map((r) => r.event_id)).toEqual(['dup']);
  });
});

describe('ip_address', () => {
  it('ignores X-Forwarded-For unless the peer is a trusted proxy, then takes the first hop', async () => {
    const { key, id } = await org();
    expect((await collect(key, { event_name: 'untrusted' }, '/api/collect', { 'x-forwarded-for': '127.0.0.5, 127.0.0.9' })).status).toBe(204);
    config.events.trustedProxies.add('127.0.0.1');
    try {
      expect((await collect(key, { event_name: 'trusted' }, '/api/collect', { 'x-forwarded-for': '127.0.0.5, 127.0.0.9' })).status).toBe(204);
    } finally {
      config.events.trustedProxies.delete('127.0.0.1');
    }
    const rows = await waitForEvents(id, (r) => r.length === 2);
    expect(Object.fromEntries(rows.map((r) => [r.event_name, r.ip_address]))).toEqual({ untrusted: '127.0.0.1', trusted: '127.0.0.5' });
  });

  it('clientIp and the enrichment helpers', () => {
    const trusted = new Set(['10.0.0.1']);
    expect(clientIp('::ffff:10.0.0.1', '198.51.100.7, 10.0.0.1', trusted)).toBe('198.51.100.7');
    expect(clientIp('10.0.0.2', '198.51.100.7', trusted)).toBe('10.0.0.2');
    expect(clientIp('10.0.0.1', 'garbage', trusted)).toBe('10.0.0.1');
    expect(clientIp('10.0.0.1', undefined, trusted)).toBe('10.0.0.1');
    expect(hostOf('https://Shop.Example.com:8443/a')).toBe('shop.example.com');
    expect(hostOf('not a url')).toBe('');
    expect(parseUserAgent(IPHONE_UA)).toEqual({ browser: 'Mobile Safari', os: 'iOS', device: 'mobile' });
    expect(parseUserAgent(undefined)).toEqual({ browser: '', os: '', device: '' });
    // Cached by string: a repeat reads the same, a different agent its own.
    const desktop = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';
    expect(parseUserAgent(desktop)).toEqual({ browser: 'Chrome', os: 'Windows', device: 'desktop' });
    expect(parseUserAgent(IPHONE_UA)).toEqual({ browser: 'Mobile Safari', os: 'iOS', device: 'mobile' });
    expect(parseUserAgent(desktop)).toEqual({ browser: 'Chrome', os: 'Windows', device: 'desktop' });
    // The offline database shipped in geoip-lite (a lookup, no network).
    expect(geoLookup('8.8.8.8')).toMatchObject({ country: 'US' });
    expect(geoLookup('127.0.0.1')).toBeNull();
  });
});

describe('OpenAPI', () => {
  it('documents /api/collect and the poll tracking paths', async () => {
    const doc = (await call(h.url, 'GET', '/v1/openapi.json')).body;
    const op = doc.paths['/api/collect'].post;
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '204', '400', '401', '413', '415', '429']));
    expect(op.requestBody.content['application/json'].schema).toBeDefined();
    expect(doc.paths['/api/v1/tracking/sponsored-polls/vote'].post).toBeDefined();
    expect(doc.paths['/api/v1/tracking/sponsored-polls/results'].get).toBeDefined();
  });
});

describe('leasedBudget', () => {
  it('reserves chunks, hands them out locally, and asks for the exact cost when a chunk no longer fits', async () => {
    const limit = 25;
    let used = 0;
    const calls: number[] = [];
    const consume = async (_key: string, cost: number) => {
      calls.push(cost);
      const allowed = used + cost <= limit;
      if (allowed) used += cost;
      return { allowed, limit, remaining: limit - used, resetAt: Math.floor(Date.now() / 1000) + 3600 };
    };
    const take = leasedBudget(consume, () => 10);
    const verdicts = [];
    for (let i = 0; i < 27; i++) verdicts.push((await take('k', 1)).allowed);
    expect(verdicts.filter(Boolean)).toHaveLength(25); // everything the limit allows, nothing more
    expect(verdicts.slice(25)).toEqual([false, false]);
    expect(calls.slice(0, 3)).toEqual([10, 10, 10]); // two chunks, then the third does not fit...
    expect(calls[3]).toBe(1); // ...so exact costs
    expect((await take('k', 12)).allowed).toBe(false);
    expect(defaultChunk(1_000_000)).toBe(1000);
    expect(defaultChunk(50)).toBe(1);
  });

  it('reserves the next chunk while half of one is left, so a steady stream never waits for the counter', async () => {
    const pending: (() => void)[] = [];
    const calls: number[] = [];
    const resetAt = Math.floor(Date.now() / 1000) + 3600;
    const consume = (_key: string, cost: number) => {
      calls.push(cost);
      return new Promise<{ allowed: boolean; limit: number; remaining: number; resetAt: number }>((resolve) =>
        pending.push(() => resolve({ allowed: true, limit: 1000, remaining: 1000 - calls.reduce((a, b) => a + b, 0), resetAt })),
      );
    };
    const take = leasedBudget(consume, () => 10);
    const first = take('k', 1);
    pending.shift()!(); // the first take waits for its chunk
    expect((await first).allowed).toBe(true);
    for (let i = 0; i < 5; i++) await take('k', 1); // 9 -> 4 left: below half a chunk
    expect(calls).toEqual([10, 10]); // the next chunk is asked for in the background...
    let answered = 0;
    const takes = [1, 2, 3, 4].map(() => take('k', 1).then(() => (answered += 1)));
    await Promise.resolve();
    expect(answered).toBe(4); // ...and the remainder is handed out meanwhile, without waiting for it
    pending.shift()!();
    await Promise.all(takes);
    await new Promise((r) => setImmediate(r));
    // The refilled chunk, handed out with no wait; the third reservation is asked for at 4 left.
    for (let i = 0; i < 10; i++) expect((await take('k', 1)).allowed).toBe(true);
    expect(calls).toEqual([10, 10, 10]);
    // A burst past what is left waits for the reservation under way instead of asking for another.
    const burst = take('k', 3);
    await Promise.resolve();
    expect(calls).toEqual([10, 10, 10]);
    pending.shift()!();
    expect((await burst).allowed).toBe(true);
    expect(calls).toEqual([10, 10, 10]);
  });
});
