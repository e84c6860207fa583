/**
 * What the auction hands on: signed tracking URLs (claims, kinds, expiry,
 * tampering; key rotation: test/signed-token.unit.test.ts), the ClickHouse log (every auction and bid, drained on
 * close), GET /metrics, and the OpenAPI document.
 */
import { readDeliveryToken } from '../../domain/delivery/tracking-token';
import { trafficBinding } from '../../domain/delivery/invalid-traffic';
import { createClickhouse } from '../../lib/clickhouse/client';
import { sql } from '../../lib/clickhouse/sql';
import { adRequestSchema } from '../../auction/request-schema';
import { randomBytes } from 'node:crypto';
import { insertTree } from '../support/fixtures';
import { newOrg } from '../support/harness';
import { addReferenceDsp, adRequest, BROWSER_UA, contextualRequest, removeDsp, startAuction, until, type AuctionHarness } from './support';
import type { ReferenceDsp } from '../../dev/reference-dsp/server';

let h: AuctionHarness;
let dsp: ReferenceDsp;
let dspId: string;
beforeAll(async () => {
  h = await startAuction({ budget: { mayServe: () => false } });
  ({ dsp, dspId } = await addReferenceDsp(h, 'native', { price: 3.21 }));
});
afterAll(async () => {
  await removeDsp(h, dspId);
  await dsp.close();
  await h.close();
});

const tokenOf = (url: string) => new URL(url).searchParams.get('token')!;

describe('signed tracking URLs', () => {
  let ad: any;
  let auctionId: string;
  beforeAll(async () => {
    const res = await adRequest(h, contextualRequest({ country_code: 'AQ' }));
    ad = res.body.ad;
    auctionId = res.body.auction_id;
  });

  test('view, click and feedback tokens carry what delivery tracking needs, each genuine for its own tracker only', () => {
    const base = {
      auction_id: auctionId,
      publisher_id: h.publisherId,
      price_micros: 3_210_000,
      source: 'dsp',
      dsp_id: dspId,
      bid_id: expect.any(String),
      country: 'AQ',
      device: 'mobile',
      // The auction user's user agent and network, which its pixels and clicks must match (domain/delivery/invalid-traffic.ts).
      ...trafficBinding(BROWSER_UA, '127.0.0.42'),
      // No user_key / chat_key: this publisher has no density settings, so a DSP's ad is counted nowhere.
    };
    expect(new URL(ad.view_url).pathname).toBe('/api/v1/tracking/view');
    const view = readDeliveryToken(tokenOf(ad.view_url), 'view');
    expect(view).toEqual({ expired: false, form: 'compact', claims: { kind: 'view', ...base, dsp_view_url: 'https://track.reference-dsp.example/v?id=1' } });
    expect(readDeliveryToken(tokenOf(ad.url), 'click')?.claims).toEqual({
      kind: 'click',
      ...base,
      url: `https://click.reference-dsp.example/c?id=1&view_url=${encodeURIComponent('https://track.reference-dsp.example/v?id=1')}`,
    });
    expect(readDeliveryToken(tokenOf(ad.feedback_url), 'feedback')?.claims).toEqual({
      kind: 'feedback',
      ...base,
      dsp_feedback_url: 'https://track.reference-dsp.example/f?id=1',
    });
    expect(readDeliveryToken(tokenOf(ad.view_url), 'click')).toBeNull();
    expect(readDeliveryToken(tokenOf(ad.url), 'feedback')).toBeNull();
  });

  test('tampering with the claims, the expiry or the signature is rejected', () => {
    const token = tokenOf(ad.url);
    const [kid, exp, shared, own, sig] = token.split('.');
    const flip = (text: string, at: number) => text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);
    expect(readDeliveryToken(`${kid}.${exp}.${shared}.${own}.${sig}`, 'click')).not.toBeNull();
    for (const forged of [
      `${kid}.${exp}.${flip(shared, 10)}.${own}.${sig}`,
      `${kid}.${exp}.${shared}.${flip(own, 5)}.${sig}`,
      `${kid}.${Number(exp) + 1}.${shared}.${own}.${sig}`,
      `${kid}.${exp}.${shared}.${own}.${flip(sig, 0)}`,
      `other.${exp}.${shared}.${own}.${sig}`,
      `${kid}.${exp}.${shared}${own}.${sig}`,
      `${kid}.${exp}.${own}.${shared}.${sig}`,
    ])
      expect(readDeliveryToken(forged, 'click')).toBeNull();
  });
});

describe('the ClickHouse log and metrics', () => {
  test('every auction and every bid is logged; close() drains the batch', async () => {
    const clickhouse = createClickhouse();
    try {
      const a = await adRequest(h, contextualRequest({ country_code: 'AQ' }));
      // An ad of our own that request b names outright, so in-house demand gets as far as the budget gate whatever else the shared index holds.
      const topic = `zt${randomBytes(4).toString('hex')}`;
      const tree = await insertTree(h.db, await newOrg(h.db), {
        campaign: { status: 'active', reviewStatus: 'approved', startTime: new Date(Date.now() - 3_600_000), targetCountries: ['AQ'] },
        adGroup: { contextHints: [topic] },
      });
      await until(() => h.auction.deps.catalog.ads.some((x) => x.adId === tree.ad.id), 'our ad in the index');
      const messages = [
        { role: 'user', content: `Where can I buy ${topic}?` },
        { role: 'assistant', content: `Several shops sell ${topic}.` },
      ];
      const b = await adRequest(h, contextualRequest({ country_code: 'AQ', ad_formats: ['poll'], messages }));
      await h.db.campaign.update({ where: { id: tree.campaign.id }, data: { status: 'paused' } });
      await h.auction.deps.log.drain();
      expect(h.auction.deps.log.queued).toBe(0);
      const auctions = await (
        await clickhouse.query({
          query: sql`SELECT auction_id, filled, winner_bidder, price_micros, format, publisher_id FROM auctions WHERE has(${[a.body.auction_id, b.body.auction_id]}, auction_id) ORDER BY filled DESC`,
          format: 'JSONEachRow',
        })
      ).json<any>();
      expect(auctions).toEqual([
        { auction_id: a.body.auction_id, filled: 1, winner_bidder: dspId, price_micros: 3_210_000, format: 'sponsored_message', publisher_id: h.publisherId },
        { auction_id: b.body.auction_id, filled: 0, winner_bidder: '', price_micros: 0, format: '', publisher_id: h.publisherId },
      ]);
      const bids = await (
        await clickhouse.query({
          query: sql`SELECT bidder_id, outcome, reason, seat_non_bid_code FROM auction_bids WHERE auction_id = ${b.body.auction_id} ORDER BY bidder_id`,
          format: 'JSONEachRow',
        })
      ).json<any>();
      expect(bids).toEqual(
        expect.arrayContaining([
          { bidder_id: dspId, outcome: 'rejected', reason: 'format_not_supported', seat_non_bid_code: 202 },
          // In-house demand is closed here (the budget gate): its no-bid is named by the furthest any ad got.
          { bidder_id: 'inhouse', outcome: 'rejected', reason: 'budget_exhausted', seat_non_bid_code: 0 },
        ]),
      );
    } finally {
      await clickhouse.close();
    }
  });

  test('GET /metrics: auctions, ms histograms, per-DSP latency and non-bid reasons, index size and age', async () => {
    await adRequest(h, contextualRequest({ country_code: 'AQ', ad_formats: ['poll'] }));
    const res = await fetch(h.metricsUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await res.text();
    expect(text).toMatch(/auction_requests_total\{result="filled"\} [1-9]/);
    expect(text).toMatch(/auction_overhead_ms_bucket\{le="0.5"\}/);
    expect(text).toMatch(/auction_duration_ms_bucket\{le="1"\}/);
    // DSPs by name (what operators know them by), never by id.
    const { name } = await h.db.dsp.findUniqueOrThrow({ where: { id: dspId } });
    expect(text).toContain(`auction_dsp_latency_ms_bucket{le="1",dsp="${name}"}`);
    expect(text).toContain(`auction_non_bids_total{bidder="${name}",reason="format_not_supported",code="202"}`);
    expect(text).not.toContain(dspId);
    expect(text).toMatch(/auction_index_ads \d+/);
    expect(text).toMatch(/auction_index_age_seconds [\d.]+/);
  });
});

describe('OpenAPI', () => {
  test('GET /v1/openapi.json describes POST /v1/ad_requests from the same schema', async () => {
    const res = await fetch(`${h.url}/v1/openapi.json`);
    expect(res.status).toBe(200);
    const doc: any = await res.json();
    expect(doc.openapi).toMatch(/^3\./);
    const op = doc.paths['/v1/ad_requests'].post;
    expect(Object.keys(op.responses).sort()).toEqual(['200', '400', '401', '413', '415', '429']);
    expect(op.security).toEqual([{ publisherKey: [] }]);
    const schema = op.requestBody.content['application/json'].schema;
    expect(schema.required.sort()).toEqual(['country_code', 'device', 'timezone', 'userId']);
    expect(Object.keys(schema.properties).sort()).toEqual(Object.keys(adRequestSchema.shape).sort());
    expect(schema.additionalProperties).toBe(false);
  });
});

describe('the api process serves /metrics too', () => {
  test('GET /metrics on the api: Prometheus text with request durations in ms', async () => {
    const { startHarness } = await import('../support/harness');
    const api = await startHarness();
    try {
      await fetch(`${api.url}/healthz`);
      const res = await fetch(api.metricsUrl);
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).toContain('api_http_request_duration_ms_bucket{le="1",method="GET",route="/healthz",status="200"}');
      // Labels are the declared patterns, whatever handled the answer (an error handler mounted on a path garbled them once).
      await fetch(`${api.url}/api/collect?validate_only=true`, { method: 'POST' });
      await fetch(`${api.url}/api/v1/tracking/sponsored-polls/vote?token=x`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      await fetch(`${api.url}/no/such/path`);
      const labels = new Set([...(await (await fetch(api.metricsUrl)).text()).matchAll(/route="([^"]+)"/g)].map((m) => m[1]));
      expect([...labels].filter((l) => /collect|sponsored-polls|unmatched/.test(l)).sort()).toEqual([
        '/api/collect',
        '/api/v1/tracking/sponsored-polls/vote',
        'unmatched',
      ]);
      expect(text).toContain('api_process_cpu_user_seconds_total');
    } finally {
      await api.close();
    }
  });
});
