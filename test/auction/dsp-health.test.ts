/**
 * DSP health (auction/dsp/health.ts) counts only failures that are the DSP's
 * own (issue 44, item 1): one publisher's short deadlines, malformed input or
 * sandbox traffic must not back a DSP off for every other publisher. Real
 * auction, real reference DSPs on loopback, real PostgreSQL and ClickHouse.
 */
import { randomBytes } from 'node:crypto';
import { createPublisher } from '../../domain/publishers';
import { hashSecret } from '../../lib/secrets';
import { adRequest, contextualRequest, loggedBids, useAuction, useReferenceDsp } from './support';
import { until } from '../support/wait';

// Only DSPs bid here: the in-house bidder's budget gate is closed, so other tests' campaigns never compete.
const h = useAuction({ budget: { mayServe: () => false } });
const request = (o: Record<string, unknown> = {}) => contextualRequest({ country_code: 'AQ', ...o });
/** More than the back-off threshold (AUCTION_BACKOFF_AFTER, 5 by default). */
const MANY = 8;

/** A sandbox publisher (`adctl publisher create --test`) on the same auction. */
const sandbox = { url: '', publisherKey: '' };
beforeAll(async () => {
  const { publisher_key } = await createPublisher(h.db, { name: `Sandbox host ${randomBytes(3).toString('hex')}`, test: true });
  await until(() => h.auction.deps.catalog.publishers.has(hashSecret(publisher_key)), 'the sandbox publisher in the catalog');
  Object.assign(sandbox, { url: h.url, publisherKey: publisher_key });
});

describe('one native DSP', () => {
  const ref = useReferenceDsp(h, 'native', { price: 2 });
  beforeEach(() => {
    ref.dsp.set({ fault: 'none', latencyMs: 0 });
    ref.dsp.received.length = 0;
    // Each test starts with a healthy DSP.
    h.auction.deps.health.record(ref.dspId, null);
  });

  /** A real publisher's auction with the full deadline: the DSP is called and wins. */
  async function expectServedToRealPublisher() {
    const res = await adRequest(h, request());
    expect(res.status).toBe(200);
    const record = (await loggedBids(h, res.body.auction_id)).find((r) => r.bidder_id === ref.dspId);
    expect(record).toMatchObject({ outcome: 'won', reason: '' });
    expect(res.body.ad).toMatchObject({ price: 2 });
  }

  test("a publisher's short tmax times the DSP out, but does not back it off for the others", async () => {
    // 600 ms answers: a 300 ms deadline leaves the DSP about 225 ms (tmax less our reserves), the full 2000 ms plenty.
    ref.dsp.set({ latencyMs: 600 });
    for (let i = 0; i < MANY; i += 1) {
      const res = await adRequest(h, request({ tmax: 300 }));
      // Cut by the deadline; on a busy machine the deadline can be too near to call the DSP at all (insufficient_time): neither backs it off.
      const record = (await loggedBids(h, res.body.auction_id)).find((r) => r.bidder_id === ref.dspId);
      expect(record).toMatchObject({ outcome: 'rejected', reason: expect.stringMatching(/^(timeout|insufficient_time)$/) });
    }
    expect(h.auction.deps.health.available(ref.dspId)).toBe(true);
    await expectServedToRealPublisher();
  });

  test("a sandbox publisher's failed calls do not back the DSP off for real publishers", async () => {
    ref.dsp.set({ fault: 'http_500' });
    for (let i = 0; i < MANY; i += 1) {
      const res = await adRequest(sandbox, request());
      expect(res.body.test).toBe(true);
      expect((await loggedBids(h, res.body.auction_id)).find((r) => r.bidder_id === ref.dspId)).toMatchObject({
        outcome: 'rejected',
        reason: 'dsp_http_error',
      });
    }
    ref.dsp.set({ fault: 'none' });
    expect(h.auction.deps.health.available(ref.dspId)).toBe(true);
    await expectServedToRealPublisher();
  });

  test('the same failures from a real publisher with the full deadline still back the DSP off', async () => {
    ref.dsp.set({ fault: 'http_500' });
    for (let i = 0; i < 5; i += 1) await adRequest(h, request());
    ref.dsp.set({ fault: 'none' });
    const calls = ref.dsp.received.length;
    const res = await adRequest(h, request());
    expect(ref.dsp.received.length).toBe(calls);
    expect((await loggedBids(h, res.body.auction_id)).find((r) => r.bidder_id === ref.dspId)).toMatchObject({ reason: 'dsp_backed_off' });
  });

  test.each([
    ['a control character', 'Mozilla/5.0\u0001(x)'],
    ['a line break', 'Mozilla/5.0\r\nX-Injected: 1'],
    ['a tab', 'Mozilla/5.0\t(x)'],
    ['text outside ASCII', 'Mozilla/5.0 (日本)'],
  ])('a user_agent with %s is refused at intake (400, param user_agent); no DSP is called', async (_label, userAgent) => {
    for (let i = 0; i < MANY; i += 1) {
      const res = await adRequest(h, request({ user_agent: userAgent }));
      expect(res).toEqual({
        status: 400,
        body: { error: { message: expect.stringContaining('user_agent'), type: 'invalid_request_error', param: 'user_agent', code: 'invalid_value' } },
      });
    }
    expect(ref.dsp.received).toEqual([]);
    await expectServedToRealPublisher();
  });
});
