/**
 * Each publisher key's rate limit on POST /v1/ad_requests
 * (auction/publisher/rate-limit.ts): shared by two copies of the auction,
 * the spec's 429 with Retry-After past it, another publisher still served,
 * a publisher's own limit from its settings, and the metric.
 */
import { randomBytes } from 'node:crypto';
import { createPublisher } from '../../domain/publishers';
import { updatePublisherSettings } from '../../domain/publishers/settings';
import { adRequest, contextualRequest, startAuction, until, type AuctionHarness } from './support';

// A fixed clock in the middle of a one-second window: every request of the test falls in it.
const now = Math.floor(Date.now() / 1000) * 1000 + 500;
const LIMIT = 3;
let a: AuctionHarness;
let b: AuctionHarness;

beforeAll(async () => {
  const options = { settings: { publisherRateLimitPerSecond: LIMIT }, rateLimitClock: () => now };
  a = await startAuction(options);
  b = await startAuction(options, { reusePublisherKey: a.publisherKey, publisherId: a.publisherId });
  await until(() => b.auction.deps.catalog.publishers.size > 0, 'the publisher in the second copy');
});
afterAll(async () => {
  await b.close();
  await a.close();
});

const THROTTLED = { error: { message: 'request was throttled', type: 'rate_limit_error', param: null, code: 'rate_limit_exceeded' } };

async function post(url: string, key: string, body: unknown) {
  const res = await fetch(`${url}/v1/ad_requests`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() };
}

/** Another publisher, known to copy `h`'s catalog. */
async function anotherPublisher(h: AuctionHarness) {
  const created = await createPublisher(h.db, { name: `Other host ${randomBytes(3).toString('hex')}`, domain: 'other.example' });
  await until(() => [...h.auction.deps.catalog.publishers.values()].some((p) => p.publicId === created.publisher_id), 'the publisher in the auction');
  return created;
}

test('past the limit, counted across two copies, the auction answers the spec 429 with Retry-After; another publisher is served', async () => {
  // One request through copy B, the rest of the limit through copy A: neither copy alone is at the limit.
  expect((await adRequest(b, contextualRequest({ country_code: 'AQ' }))).status).toBe(200);
  for (let i = 1; i < LIMIT; i += 1) expect((await adRequest(a, contextualRequest({ country_code: 'AQ' }))).status).toBe(200);
  // Each copy adds its counts to the shared counters and reads the other's (every AUCTION_RATE_LIMIT_SYNC_MS anyway).
  await b.auction.rateLimit.sync();
  await a.auction.rateLimit.sync();
  await b.auction.rateLimit.sync();

  const refused = await post(b.url, b.publisherKey, contextualRequest({ country_code: 'AQ' }));
  expect(refused).toEqual({ status: 429, retryAfter: '1', body: THROTTLED });
  expect(await post(a.url, a.publisherKey, contextualRequest({ country_code: 'AQ' }))).toEqual({ status: 429, retryAfter: '1', body: THROTTLED });
  // A large body: the same limit, before the body is read.
  const large = contextualRequest({
    country_code: 'AQ',
    messages: Array.from({ length: 40 }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: 'x'.repeat(8000) })),
  });
  expect(await post(a.url, a.publisherKey, large)).toEqual({ status: 429, retryAfter: '1', body: THROTTLED });

  const other = await anotherPublisher(a);
  const served = await adRequest({ url: a.url, publisherKey: other.publisher_key }, contextualRequest({ country_code: 'AQ' }));
  expect(served.status).toBe(200);
  expect(served.body).toMatchObject({ auction_id: expect.any(String) });

  const metrics = await (await fetch(a.metricsUrl)).text();
  expect(metrics).toContain(`auction_rate_limited_total{publisher="${a.publisherId}"} 2`);
});

test("a publisher's own limit (adctl publisher update --rate-limit) replaces the default", async () => {
  const other = await anotherPublisher(a);
  const shown = await updatePublisherSettings(a.db, other.publisher_id, { rateLimitPerSecond: 1 });
  expect(shown.rate_limit).toBe(1);
  await until(
    () => [...a.auction.deps.catalog.publishers.values()].some((p) => p.publicId === other.publisher_id && p.rateLimitPerSecond === 1),
    'the limit in the auction',
  );
  expect((await post(a.url, other.publisher_key, contextualRequest({ country_code: 'AQ' }))).status).toBe(200);
  expect(await post(a.url, other.publisher_key, contextualRequest({ country_code: 'AQ' }))).toEqual({ status: 429, retryAfter: '1', body: THROTTLED });
});

test("the auction's OpenAPI document declares the 429 and its Retry-After", async () => {
  const doc = (await (await fetch(`${a.url}/v1/openapi.json`)).json()) as { paths: Record<string, { post: { responses: Record<string, unknown> } }> };
  expect(doc.paths['/v1/ad_requests'].post.responses['429']).toMatchObject({ headers: { 'Retry-After': { schema: { type: 'integer' } } } });
});
