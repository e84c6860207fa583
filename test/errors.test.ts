/**
 * The error object on every failure path (spec: Conventions, Errors), request
 * ids, and the health endpoint.
 */
import { call, errorBody, newOrg, useHarness } from './support/harness';

const h = useHarness();
let apiKey: string;
beforeAll(async () => {
  apiKey = (await newOrg(h.db)).api_key;
});

/** Neither an HTML page nor a stack trace, and a JSON content type. */
function expectCleanJson(res: { headers: Headers; body: unknown }) {
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const text = typeof res.body === 'string' ? res.body : JSON.stringify(res.body);
  expect(text).not.toMatch(/<html|<!DOCTYPE|<pre>/i);
  expect(text).not.toMatch(/\n\s+at |node_modules|\.ts:\d+|SyntaxError|PayloadTooLargeError/);
}

const REQUEST_ID = /^req_[A-Za-z0-9_-]{16}$/;

describe('/v1 errors', () => {
  test('unknown route: 404 not_found (any method)', async () => {
    for (const method of ['GET', 'POST', 'DELETE']) {
      const res = await call(h.url, method, '/v1/no_such_resource/123', { token: apiKey });
      expect(res.status).toBe(404);
      expect(res.body).toEqual(errorBody('not_found'));
      expectCleanJson(res);
    }
  });

  test('a known path with another method: 405 method_not_allowed with Allow', async () => {
    for (const [method, path, allow] of [
      ['POST', '/v1/ad_account', 'GET, HEAD, OPTIONS'],
      ['PUT', '/v1/campaigns', 'POST, GET, HEAD, OPTIONS'],
      ['DELETE', '/v1/campaigns/00000000-0000-4000-8000-000000000000', 'GET, HEAD, POST, OPTIONS'],
      ['PATCH', '/v1/ads/x/pause', 'POST, OPTIONS'],
    ]) {
      const res = await call(h.url, method, path, { token: apiKey, body: {} });
      expect({ method, path, status: res.status, allow: res.headers.get('allow') }).toEqual({ method, path, status: 405, allow });
      expect(res.body).toEqual(errorBody('method_not_allowed'));
      expectCleanJson(res);
    }
    const options = await call(h.url, 'OPTIONS', '/v1/campaigns', { token: apiKey });
    expect([options.status, options.headers.get('allow')]).toEqual([204, 'POST, GET, HEAD, OPTIONS']);
  });

  test('an unknown route without a key is refused before routing (401, not 404)', async () => {
    const res = await call(h.url, 'GET', '/v1/no_such_resource');
    expect(res.status).toBe(401);
    expect(res.body).toEqual(errorBody('auth_required', 'authentication_error'));
  });

  test('malformed JSON: 400 invalid_json', async () => {
    for (const rawBody of ['{"name": ', '{name: 1}', 'null x', '"a bare string"']) {
      const res = await call(h.url, 'POST', '/v1/no_such_resource', { token: apiKey, rawBody, headers: { 'content-type': 'application/json' } });
      expect({ rawBody, status: res.status }).toEqual({ rawBody, status: 400 });
      expect(res.body).toEqual(errorBody('invalid_json'));
      expectCleanJson(res);
    }
  });

  test('a body of another content type: 415 unsupported_media_type', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const res = await call(h.url, 'POST', '/v1/ad_groups', { token: apiKey, rawBody: 'name=x', headers: { 'content-type': type } });
      expect({ type, status: res.status }).toEqual({ type, status: 415 });
      expect(res.body).toEqual(errorBody('unsupported_media_type'));
      expectCleanJson(res);
    }
    // No content type at all, with a body, is refused the same way.
    const res = await fetch(`${h.url}/v1/ad_groups`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}` },
      body: new Uint8Array(Buffer.from('{"a":1}')),
    });
    expect(res.status).toBe(415);
    expect(await res.json()).toEqual(errorBody('unsupported_media_type'));
  });

  test('a body that cannot be read (corrupt compression): 400 invalid_json, not a 500', async () => {
    for (const encoding of ['gzip', 'deflate', 'br']) {
      const res = await call(h.url, 'POST', '/v1/no_such_resource', {
        token: apiKey,
        rawBody: 'definitely not compressed',
        headers: { 'content-type': 'application/json', 'content-encoding': encoding },
      });
      expect({ encoding, status: res.status }).toEqual({ encoding, status: 400 });
      expect(res.body).toEqual(errorBody('invalid_json'));
      expectCleanJson(res);
    }
  });

  test('a JSON body over 1 MB: 413 body_too_large; just under passes the parser', async () => {
    const big = JSON.stringify({ pad: 'x'.repeat(1024 * 1024) });
    const res = await call(h.url, 'POST', '/v1/no_such_resource', { token: apiKey, rawBody: big, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(413);
    expect(res.body).toEqual(errorBody('body_too_large'));
    expectCleanJson(res);
    expect(res.headers.get('request-id')).toMatch(REQUEST_ID);

    const fits = JSON.stringify({ pad: 'x'.repeat(1000 * 1000) });
    const ok = await call(h.url, 'POST', '/v1/no_such_resource', { token: apiKey, rawBody: fits, headers: { 'content-type': 'application/json' } });
    // Parsed fine, then routed: the route is unknown.
    expect(ok.status).toBe(404);
    expect(ok.body).toEqual(errorBody('not_found'));
  });
});

describe('outside /v1', () => {
  test('unknown paths answer with the error object, never HTML', async () => {
    for (const path of ['/', '/nope', '/v2/ad_account', '/v1x', '/favicon.ico']) {
      const res = await call(h.url, 'GET', path);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      expect(res.body).toEqual(errorBody('not_found'));
      expectCleanJson(res);
    }
  });

  test('a path parameter with a broken %-escape is 404 not_found, not a 500', async () => {
    const org = await newOrg(h.db);
    for (const path of ['/api/organizations/%E0%A4%A/api-keys/', `/api/organizations/${org.org_public_id}/api-keys/%E0%A4%A/`]) {
      const method = path.endsWith('%A/') && path.includes(org.org_public_id) ? 'DELETE' : 'GET';
      const res = await call(h.url, method, path, { token: org.session_token });
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      expect(res.body).toEqual({
        success: false,
        data: null,
        error: { code: 'not_found', message: expect.any(String), param: null },
        meta: { request_id: expect.any(String) },
      });
      expectCleanJson(res);
    }
    const v1 = await call(h.url, 'GET', '/v1/%E0%A4%A', { token: apiKey });
    expect(v1.status).toBe(404);
    expect(v1.body).toEqual(errorBody('not_found'));
  });

  test('unknown paths on the platform surface answer in the envelope', async () => {
    const res = await call(h.url, 'GET', '/api/nope');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      success: false,
      data: null,
      error: { code: 'not_found', message: expect.any(String), param: null },
      meta: { request_id: res.headers.get('request-id') },
    });
    expectCleanJson(res);
  });

  test('malformed JSON on the platform surface: enveloped 400 invalid_json without internals', async () => {
    const org = await newOrg(h.db);
    const res = await call(h.url, 'POST', `/api/organizations/${org.org_public_id}/api-keys/`, {
      token: org.session_token,
      rawBody: '{"name":',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_json');
    expectCleanJson(res);
  });
});

describe('Request-Id', () => {
  test('on success and on every kind of error, unique per response; meta.request_id matches', async () => {
    const responses = await Promise.all([
      call(h.url, 'GET', '/healthz'),
      call(h.url, 'GET', '/v1/ad_account', { token: apiKey }),
      call(h.url, 'GET', '/v1/ad_account'),
      call(h.url, 'GET', '/v1/ad_account', { token: `ak_${'x'.repeat(43)}` }),
      call(h.url, 'GET', '/v1/nope', { token: apiKey }),
      call(h.url, 'GET', '/nope'),
      call(h.url, 'GET', '/v1/openapi.json'),
      call(h.url, 'GET', '/api/organizations/x/api-keys/'),
    ]);
    expect(responses.map((r) => r.status)).toEqual([200, 200, 401, 401, 404, 404, 200, 401]);
    const ids = responses.map((r) => r.headers.get('request-id'));
    for (const id of ids) expect(id).toMatch(REQUEST_ID);
    expect(new Set(ids).size).toBe(ids.length);
    expect(responses[7].body.meta.request_id).toBe(ids[7]);
  });
});

describe('/healthz', () => {
  test('200 { ok: true } without authentication', async () => {
    const res = await call(h.url, 'GET', '/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ ok: true });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('x-powered-by')).toBeNull();
  });
});
