/**
 * Sandbox auctions stay sandbox at the DSPs (issue 44, item 2): a sandbox
 * publisher's render call says `production: false`, its OpenRTB requests say
 * `test: 1`, and `adctl dsp report` (what a DSP is reconciled against) counts
 * none of its bids or wins. Real auction, reference DSPs on loopback, real
 * ClickHouse, the real bin/adctl.
 */
import { randomBytes } from 'node:crypto';
import { createPublisher } from '../../domain/publishers';
import { hashSecret } from '../../lib/secrets';
import { adctl } from '../support/cli';
import { adRequest, contextualRequest, useAuction, useReferenceDsp } from './support';
import { until } from '../support/wait';

// Only DSPs bid here: the in-house bidder's budget gate is closed, so other tests' campaigns never compete.
const h = useAuction({ budget: { mayServe: () => false } });
const request = () => contextualRequest({ country_code: 'AQ' });

/** A sandbox publisher (`adctl publisher create --test`) on the same auction as the real one. */
const sandbox = { url: '', publisherKey: '' };
beforeAll(async () => {
  const { publisher_key } = await createPublisher(h.db, { name: `Sandbox host ${randomBytes(3).toString('hex')}`, test: true });
  await until(() => h.auction.deps.catalog.publishers.has(hashSecret(publisher_key)), 'the sandbox publisher in the catalog');
  Object.assign(sandbox, { url: h.url, publisherKey: publisher_key });
});

async function dspReport(dspId: string) {
  await h.auction.deps.log.flush();
  const run = await adctl('dsp', 'report', '--dsp', dspId, '--since', new Date(Date.now() - 3_600_000).toISOString());
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
  return JSON.parse(run.stdout) as { dsps: { dsp_id: string; requests: number; bids: number; wins: number }[] };
}

describe('a native DSP that renders its winning bids', () => {
  const ref = useReferenceDsp(h, 'native', { price: 1.25, creative: 'render' });
  beforeEach(() => {
    ref.dsp.received.length = 0;
  });

  test("a sandbox auction's render call says production: false; a real one's production: true", async () => {
    const res = await adRequest(sandbox, request());
    expect(res.body).toMatchObject({ test: true, ad: { price: 1.25 } });
    expect(ref.dsp.received.filter((r) => r.path === '/native/render').map((r) => r.body)).toEqual([
      { bidId: expect.any(String), realizedPrice: 1.25, production: false },
    ]);
    // The native bid request names no test field (the spec has none): the sandbox bid body is the production one.
    const sandboxBid = ref.dsp.received.find((r) => r.path === '/native/bid')!.body;
    expect(sandboxBid).not.toHaveProperty('test');

    ref.dsp.received.length = 0;
    const real = await adRequest(h, request());
    expect(real.body.test).toBeUndefined();
    expect(ref.dsp.received.filter((r) => r.path === '/native/render').map((r) => r.body)).toEqual([
      { bidId: expect.any(String), realizedPrice: 1.25, production: true },
    ]);
    expect(Object.keys(ref.dsp.received.find((r) => r.path === '/native/bid')!.body)).toEqual(Object.keys(sandboxBid));
  });
});

describe('adctl dsp report', () => {
  const ref = useReferenceDsp(h, 'native', { price: 2 });

  test('counts none of the bids and wins of sandbox auctions', async () => {
    for (let i = 0; i < 3; i += 1) expect((await adRequest(sandbox, request())).body).toMatchObject({ test: true, ad: { price: 2 } });
    expect((await dspReport(ref.dspId)).dsps).toEqual([]);
    // A real publisher's auction is counted as before.
    expect((await adRequest(h, request())).body.ad).toMatchObject({ price: 2 });
    expect((await dspReport(ref.dspId)).dsps).toEqual([expect.objectContaining({ dsp_id: ref.dspId, requests: 1, bids: 1, wins: 1 })]);
  });
});

describe('an OpenRTB DSP', () => {
  const ref = useReferenceDsp(h, 'openrtb', { price: 2 });

  test('a sandbox auction sends test: 1, a real one test: 0', async () => {
    ref.dsp.received.length = 0;
    await adRequest(sandbox, request());
    await adRequest(h, request());
    expect(ref.dsp.received.filter((r) => r.path === '/openrtb').map((r) => r.body.test)).toEqual([1, 0]);
  });
});
