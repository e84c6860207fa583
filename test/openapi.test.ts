/**
 * `/v1/openapi.json`: public, OpenAPI 3.1.0, and a faithful account of the
 * routes the app serves so far, with the spec's error object.
 */
import { csrfTokenFor } from '../lib/csrf';
import { call, newOrg, useHarness } from './support/harness';

const h = useHarness();
let doc: any;
beforeAll(async () => {
  const res = await call(h.url, 'GET', '/v1/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body;
});

const KEYS = '/api/organizations/{org_public_id}/api-keys/';
const KEY = '/api/organizations/{org_public_id}/api-keys/{key_public_id}/';

/** Follows a local `$ref` (`#/components/...`). */
function resolve(node: any): any {
  if (!node?.$ref) return node;
  expect(node.$ref).toMatch(/^#\//);
  return node.$ref
    .slice(2)
    .split('/')
    .reduce((at: any, part: string) => at?.[part], doc);
}

function operations(): [string, string, any][] {
  return Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => [path, method, op] as [string, string, any]),
  );
}

test('is public, JSON, OpenAPI 3.1.0 with JSON Schema 2020-12', async () => {
  const res = await call(h.url, 'GET', '/v1/openapi.json');
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(doc.openapi).toBe('3.1.0');
  expect(doc.jsonSchemaDialect).toBe('https://json-schema.org/draft/2020-12/schema');
  expect(doc.info).toEqual({ title: expect.any(String), version: expect.any(String) });
  // A bad key does not matter: the document is not behind authentication.
  const withBadKey = await call(h.url, 'GET', '/v1/openapi.json', { token: `ak_${'z'.repeat(43)}` });
  expect(withBadKey.status).toBe(200);
  expect(withBadKey.body).toEqual(doc);
});

test('documents every route served so far, with its auth', () => {
  const served: [string, string, string][] = [
    ['/v1/ad_account', 'get', 'apiKey'],
    [KEYS, 'post', 'dashboardSession'],
    [KEYS, 'get', 'dashboardSession'],
    [KEY, 'delete', 'dashboardSession'],
  ];
  for (const [path, method, scheme] of served) {
    const op = doc.paths[path]?.[method];
    expect({ path, method, documented: Boolean(op) }).toEqual({ path, method, documented: true });
    expect(op.security).toEqual([{ [scheme]: [] }]);
    expect(op.summary).toEqual(expect.any(String));
  }
  expect(doc.components.securitySchemes).toMatchObject({
    apiKey: { type: 'http', scheme: 'bearer' },
    dashboardSession: { type: 'http', scheme: 'bearer' },
  });
});

test('every documented operation is really served (none answers as an unknown route)', async () => {
  const org = await newOrg(h.db);
  for (const [path, method, op] of operations()) {
    const concrete = path.replace('{org_public_id}', org.org_public_id).replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');
    const cookie = Boolean(op.security?.[0]?.dashboardCookie);
    const token = op.security?.[0]?.apiKey ? org.api_key : cookie ? undefined : org.session_token;
    // The dashboard's endpoints: the same session as its cookie, state changes with its CSRF token.
    const headers: Record<string, string> = cookie ? { cookie: `dashboard_session=${org.session_token}`, 'x-csrf-token': csrfTokenFor(org.session_token) } : {};
    // A body the validator refuses is enough to reach the route without changing anything.
    const body = op.requestBody ? { __probe__: true } : undefined;
    const res = await call(h.url, method.toUpperCase(), concrete, { token, body, headers });
    const message: string = res.body?.error?.message ?? '';
    expect({ path, method, unknownRoute: /Unrecognized request URL|No such resource/.test(message) }).toEqual({ path, method, unknownRoute: false });
    expect({ path, method, status: res.status }).not.toEqual({ path, method, status: 401 });
  }
});

test('path templates and declared path parameters agree', () => {
  for (const [path, method, op] of operations()) {
    const inTemplate = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
    const declared = (op.parameters ?? [])
      .filter((p: any) => p.in === 'path')
      .map((p: any) => p.name)
      .sort();
    expect({ path, method, declared }).toEqual({ path, method, declared: inTemplate });
    for (const p of (op.parameters ?? []).filter((q: any) => q.in === 'path')) expect(p.required).toBe(true);
  }
});

test('the Error schema is the spec error object', () => {
  const schema = doc.components.schemas.Error;
  expect(schema).toMatchObject({ type: 'object', required: ['error'] });
  const inner = schema.properties.error;
  expect(inner.type).toBe('object');
  expect([...inner.required].sort()).toEqual(['code', 'message', 'param', 'type']);
  expect(inner.properties.message).toEqual({ type: 'string' });
  expect(inner.properties.code).toEqual({ type: 'string' });
  expect(inner.properties.type.enum.sort()).toEqual(['authentication_error', 'invalid_request_error', 'rate_limit_error', 'server_error']);
  // string or null, in either of JSON Schema's spellings
  const param = inner.properties.param;
  const paramTypes = param.anyOf ? param.anyOf.map((t: { type: string }) => t.type) : param.type;
  expect([...paramTypes].sort()).toEqual(['null', 'string']);
});

test('every /v1 error response uses the Error schema; 401 and 429 are documented', () => {
  const v1 = operations().filter(([path]) => path.startsWith('/v1/'));
  expect(v1.length).toBeGreaterThan(0);
  for (const [path, method, op] of v1) {
    expect({ path, method, has401: '401' in op.responses, has429: '429' in op.responses }).toEqual({ path, method, has401: true, has429: true });
    for (const [status, response] of Object.entries<any>(op.responses)) {
      // 431 comes from Node's HTTP parser, before any route: no body at all.
      if (Number(status) < 400 || status === '431') continue;
      const schema = response.content?.['application/json']?.schema;
      expect({ path, method, status, ref: schema?.$ref }).toEqual({ path, method, status, ref: '#/components/schemas/Error' });
      expect(resolve(schema)).toBe(doc.components.schemas.Error);
    }
  }
});

test('GET /v1/ad_account documents the ad account exactly', () => {
  const op = doc.paths['/v1/ad_account'].get;
  expect(op.responses['404']).toBeDefined();
  const schema = resolve(op.responses['200'].content['application/json'].schema);
  expect(Object.keys(schema.properties).sort()).toEqual(['currency_code', 'id', 'name', 'preview_url', 'timezone', 'url']);
  expect([...schema.required].sort()).toEqual(['currency_code', 'id', 'name', 'timezone', 'url']);
  expect(schema.properties.timezone).toMatchObject({ const: 'UTC' });
  expect(schema.properties.currency_code).toMatchObject({ const: 'USD' });
  expect(schema.properties.id).toMatchObject({ type: 'string', format: 'uuid' });
});

test('the key-management operations document the envelope, the key record and their errors', () => {
  const post = doc.paths[KEYS].post;
  const created = resolve(post.responses['201'].content['application/json'].schema);
  expect([...created.required].sort()).toEqual(['data', 'error', 'meta', 'success']);
  const record = created.properties.data.properties.api_key;
  expect(Object.keys(record.properties).sort()).toEqual(['created_at', 'expires_at', 'is_active', 'key_preview', 'last_used', 'name', 'public_id', 'secret']);
  const body = post.requestBody.content['application/json'].schema;
  // Optional: a string of at most 100 characters, or null (both read as the empty label when absent).
  expect(body.properties.name.anyOf).toEqual([{ type: 'string', maxLength: 100 }, { type: 'null' }]);
  expect(body.additionalProperties).toBe(false);

  const list = resolve(doc.paths[KEYS].get.responses['200'].content['application/json'].schema);
  const listed = list.properties.data.properties.api_keys.items;
  expect(Object.keys(listed.properties)).not.toContain('secret');

  const del = resolve(doc.paths[KEY].delete.responses['200'].content['application/json'].schema);
  expect(del.properties.data.properties.revoked).toMatchObject({ const: true });

  for (const [path, method] of [
    [KEYS, 'post'],
    [KEYS, 'get'],
    [KEY, 'delete'],
  ]) {
    const responses = doc.paths[path][method].responses;
    for (const status of ['401', '403', '404']) {
      const schema = resolve(responses[status]?.content?.['application/json']?.schema);
      expect({ path, method, status, envelope: schema?.properties && Object.keys(schema.properties).sort() }).toEqual({
        path,
        method,
        status,
        envelope: ['data', 'error', 'meta', 'success'],
      });
    }
  }
});

test('documents every endpoint of the advertiser API spec', () => {
  // Spec 1, "Endpoints", in order; path parameters as our routes name them.
  const specEndpoints: [string, string][] = [
    ['get', '/v1/ad_account'],
    ['get', '/v1/campaigns'],
    ['post', '/v1/campaigns'],
    ['get', '/v1/campaigns/{campaign_id}'],
    ['post', '/v1/campaigns/{campaign_id}'],
    ['post', '/v1/campaigns/{campaign_id}/activate'],
    ['post', '/v1/campaigns/{campaign_id}/pause'],
    ['post', '/v1/campaigns/{campaign_id}/archive'],
    ['get', '/v1/ad_groups'],
    ['post', '/v1/ad_groups'],
    ['get', '/v1/ad_groups/{id}'],
    ['post', '/v1/ad_groups/{id}'],
    ['post', '/v1/ad_groups/{id}/activate'],
    ['post', '/v1/ad_groups/{id}/pause'],
    ['post', '/v1/ad_groups/{id}/archive'],
    ['get', '/v1/ads'],
    ['post', '/v1/ads'],
    ['get', '/v1/ads/{ad_id}'],
    ['post', '/v1/ads/{ad_id}'],
    ['post', '/v1/ads/{ad_id}/activate'],
    ['post', '/v1/ads/{ad_id}/pause'],
    ['post', '/v1/ads/{ad_id}/archive'],
    ['post', '/v1/upload'],
    ['post', KEYS],
    ['get', KEYS],
    ['delete', KEY],
    // Spec 2: sponsored-poll tracking and event collection.
    ['post', '/api/v1/tracking/sponsored-polls/vote'],
    ['get', '/api/v1/tracking/sponsored-polls/results'],
    ['post', '/api/collect'],
    // Spec 2, "Insights".
    ['get', '/v1/ad_account/insights'],
    ['get', '/v1/campaigns/{campaign_id}/insights'],
    ['get', '/v1/ad_groups/{ad_group_id}/insights'],
    ['get', '/v1/ads/{ad_id}/insights'],
  ];
  const missing = specEndpoints.filter(([method, path]) => !doc.paths[path]?.[method]);
  expect(missing).toEqual([]);
  // And nothing documented that the spec does not have (besides what is ours by design).
  // Ours by design: the delivery trackers behind the auction's view_url, url and feedback_url (spec 3, DESIGN).
  const ours: [string, string][] = [
    ['get', '/api/v1/tracking/view'],
    ['get', '/api/v1/tracking/click'],
    ['post', '/api/v1/tracking/feedback'],
    // Delivery diagnostics: why a campaign is or is not delivering (docs: API behaviour).
    ['get', '/v1/campaigns/{campaign_id}/delivery'],
    // The relevance test: an advertiser scores an ad group against a conversation (docs: API behaviour, issue 45).
    ['post', '/v1/ad_groups/{id}/test_relevance'],
    // The dashboard's own JSON endpoints (DESIGN: dashboard), behind its session cookie.
    ['get', '/dashboard/api/me'],
    ['get', '/dashboard/api/campaigns'],
    ['get', '/dashboard/api/campaigns/{campaign_id}'],
    ...['activate', 'pause', 'archive'].map((a): [string, string] => ['post', `/dashboard/api/campaigns/{campaign_id}/${a}`]),
    ['get', '/dashboard/api/campaigns/{id}/insights'],
    ['get', '/dashboard/api/ad-groups/{id}/insights'],
    ['get', '/dashboard/api/api-keys'],
    ['post', '/dashboard/api/api-keys'],
    ['delete', '/dashboard/api/api-keys/{key_public_id}'],
    ['get', '/dashboard/api/review/campaigns'],
    ['get', '/dashboard/api/review/live'],
    ...['approve', 'reject', 'block'].map((v): [string, string] => ['post', `/dashboard/api/review/campaigns/{campaign_id}/${v}`]),
    // Delivery, the account's settings, and verdicts on edited creatives (issue 22).
    ['get', '/dashboard/api/campaigns/{campaign_id}/delivery'],
    ['get', '/dashboard/api/account'],
    ['post', '/dashboard/api/account'],
    ['post', '/dashboard/api/account/logo'],
    ...['approve', 'reject'].map((v): [string, string] => ['post', `/dashboard/api/review/ads/{ad_id}/${v}`]),
    // The audit log and webhooks (issue 50; docs: API behaviour).
    ['get', '/v1/audit_log'],
    ['get', '/dashboard/api/audit-log'],
    // The campaign page's hint test (issue 45; docs: API behaviour, Relevance test).
    ['post', '/dashboard/api/ad-groups/{id}/test-relevance'],
    ['post', '/v1/webhook_endpoints'],
    ['get', '/v1/webhook_endpoints'],
    ['get', '/v1/webhook_endpoints/{webhook_endpoint_id}'],
    ['post', '/v1/webhook_endpoints/{webhook_endpoint_id}'],
    ['delete', '/v1/webhook_endpoints/{webhook_endpoint_id}'],
    ['post', '/v1/webhook_endpoints/{webhook_endpoint_id}/roll_secret'],
    ['post', '/v1/webhook_endpoints/{webhook_endpoint_id}/test'],
    ['get', '/v1/webhook_endpoints/{webhook_endpoint_id}/deliveries'],
    ['post', '/v1/webhook_endpoints/{webhook_endpoint_id}/deliveries/{delivery_id}/replay'],
    ['post', '/v1/report_exports'],
    ['get', '/v1/report_exports'],
    ['get', '/v1/report_exports/{report_export_id}'],
    ['get', '/report-exports/download'],
  ];
  const documented = operations()
    .map(([path, method]) => `${method} ${path}`)
    .sort();
  expect(documented).toEqual([...specEndpoints, ...ours].map(([method, path]) => `${method} ${path}`).sort());
});
