/**
 * The view, click and feedback trackers on {tracking_url}, through a real api
 * (PostgreSQL ledger and spend store, ClickHouse export): one impression and
 * one click per auction, nothing for repeats, expired or tampered tokens,
 * redirects only to signed targets, CPM and CPC charging, budget exhaustion,
 * and feedback forwarded to a failing DSP in the background.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { addDsp } from '../../domain/dsps';
import { TRACKING_PATHS, withViewUrl } from '../../domain/delivery/tracking-token';
import { signToken } from '../../lib/signed-token';
import { call, errorBody, newOrg, useHarness } from '../support/harness';
import { until } from '../support/wait';
import { adctl } from '../support/cli';
import {
  clickhouseTotals,
  deliverableCampaign,
  exportedToClickhouse,
  get,
  ledgerRows,
  replayExport,
  spendOf,
  tampered,
  trackerUrl,
  type Claims,
} from './support';

const exhausted: string[] = [];
const h = useHarness([], { onBudgetExhausted: (ids) => exhausted.push(...ids) });

const PIXEL_TYPE = 'image/gif';
/** The sample of `name` with exactly these labels (0 when absent). */
const sample = (text: string, name: string, labels: string) => {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}} `) || (labels === '' && l.startsWith(`${name} `)));
  return Number(line?.split(' ').pop() ?? 0);
};
const scrape = async () => (await fetch(h.metricsUrl)).text();

describe('impression pixel', () => {
  test('one impression per auction, charged at the clearing price; repeats, expired, tampered, HEAD and other kinds count nothing', async () => {
    const org = await newOrg(h.db);
    const c = await deliverableCampaign(h.db, org);
    const claims = c.claims(1_500_000); // CPM 1.50 USD: 1,500 micros per impression
    const view = trackerUrl(h.url, 'view', claims);

    const first = await get(view);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toContain(PIXEL_TYPE);
    expect(first.headers.get('cache-control')).toBe('no-store');
    expect((await first.arrayBuffer()).byteLength).toBeGreaterThan(0);

    for (const again of [view, view, tampered(view), trackerUrl(h.url, 'view', c.claims(1_500_000), -10)]) {
      const res = await get(again);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain(PIXEL_TYPE);
    }
    expect((await get(trackerUrl(h.url, 'view', c.claims(1_500_000)), 'HEAD')).status).toBe(200);
    // A click token on the view path is not a view.
    expect(
      (
        await get(
          `${h.url}/api/v1/tracking/view?token=${new URL(trackerUrl(h.url, 'click', { ...claims, url: 'https://shoes.example/' })).searchParams.get('token')}`,
        )
      ).status,
    ).toBe(200);
    // No token at all: the pixel still answers.
    expect((await get(`${h.url}/api/v1/tracking/view`)).status).toBe(200);

    expect(await spendOf(h.db, c.campaign.id)).toMatchObject({ spent: 1500n, impressions: 1n, clicks: 0n });
    const rows = await h.db.deliveryLedger.findMany({ where: { campaignId: c.campaign.id } });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      eventId: `${claims.auction_id}:impression`,
      eventType: 'impression',
      source: 'inhouse',
      adId: c.ad.id,
      country: 'DE',
      device: 'mobile',
      priceMicros: 1500n,
      chargedMicros: 1500n,
    });

    await exportedToClickhouse(h, c.campaign.id);
    expect(await clickhouseTotals(c.campaign.id)).toEqual({ rows: 1, impressions: 1, clicks: 0, spend: 1500n });
    // Exporting again (a retried batch) never counts twice.
    await replayExport(h.db, c.campaign.id);
    await exportedToClickhouse(h, c.campaign.id);
    expect(await clickhouseTotals(c.campaign.id)).toEqual({ rows: 1, impressions: 1, clicks: 0, spend: 1500n });
  });

  test("a DSP's win: the first impression goes on to the DSP's own pixel; a repeat gets ours", async () => {
    const claims: Claims = {
      auction_id: randomUUID(),
      publisher_id: randomUUID(),
      price_micros: 3_000_000,
      source: 'dsp',
      dsp_id: randomUUID(),
      bid_id: 'b-1',
      country: 'US',
      device: 'desktop',
      dsp_view_url: 'https://dsp.example/pixel?imp=9',
    };
    const view = trackerUrl(h.url, 'view', claims);
    const before = await scrape();
    const first = await get(view);
    expect(first.status).toBe(302);
    expect(first.headers.get('location')).toBe('https://dsp.example/pixel?imp=9');
    const again = await get(view);
    expect(again.status).toBe(200);
    expect(again.headers.get('content-type')).toContain(PIXEL_TYPE);
    // Each request reads its token once: counted once a request.
    const counted =
      sample(await scrape(), 'api_tracking_tokens_total', 'kind="view",form="compact"') -
      sample(before, 'api_tracking_tokens_total', 'kind="view",form="compact"');
    expect(counted).toBe(2);
    expect(await ledgerRows(h.db, [claims.auction_id])).toEqual([
      expect.objectContaining({ eventType: 'impression', source: 'dsp', dspId: claims.dsp_id, bidId: 'b-1', priceMicros: 3000n, chargedMicros: 0n }),
    ]);
  });
});

describe('impression pixel: its plain form and any other', () => {
  // The plain request (GET, one token parameter), as the auction mints it, and one with another parameter: one route answers both.
  const forms = (view: string) => ({ direct: view, routed: `${view}&utm=1` });
  const headersOf = (res: Response) =>
    Object.fromEntries(['cache-control', 'referrer-policy', 'content-type', 'content-length'].map((k) => [k, res.headers.get(k)]));
  const viewCount = async () => {
    const text = await scrape();
    const line = text
      .split('\n')
      .find((l) => l.startsWith('api_http_request_duration_ms_count') && l.includes('route="/api/v1/tracking/view"') && l.includes('status="200"'));
    return Number(line?.split(' ').pop() ?? 0);
  };

  test('answer alike, count one impression per auction between them, and both are timed under the route', async () => {
    const org = await newOrg(h.db);
    const c = await deliverableCampaign(h.db, org);
    const a = forms(trackerUrl(h.url, 'view', c.claims(1_000_000)));
    const b = forms(trackerUrl(h.url, 'view', c.claims(1_000_000)));
    const timedBefore = await viewCount();

    const answers = [];
    for (const url of [a.direct, a.routed, b.routed, b.direct]) {
      const res = await get(url);
      answers.push({
        status: res.status,
        headers: headersOf(res),
        body: Buffer.from(await res.arrayBuffer()).toString('base64'),
        requestId: /^req_/.test(res.headers.get('request-id') ?? ''),
      });
    }
    expect(new Set(answers.map((x) => JSON.stringify(x))).size).toBe(1);
    expect(answers[0]).toMatchObject({
      status: 200,
      headers: { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer', 'content-type': PIXEL_TYPE },
      requestId: true,
    });
    // Two auctions: one impression each, whichever form came first.
    expect(await spendOf(h.db, c.campaign.id)).toMatchObject({ spent: 2_000n, impressions: 2n });
    expect((await viewCount()) - timedBefore).toBe(4);
  });
});

describe('click redirect', () => {
  test('CPC: the click is charged once per auction and redirects to the signed destination', async () => {
    const org = await newOrg(h.db);
    const c = await deliverableCampaign(h.db, org, { pricingModel: 'cpc', maxBidMicros: 700_000n });
    const claims = c.claims(7_000, { url: 'https://shoes.example/landing?utm=chat' });
    const click = trackerUrl(h.url, 'click', claims);

    const first = await get(click);
    expect(first.status).toBe(302);
    expect(first.headers.get('location')).toBe(`https://shoes.example/landing?utm=chat&ad_click_id=${claims.auction_id}`);
    expect(first.headers.get('referrer-policy')).toBe('no-referrer');
    // A parameter added to the link changes nothing: only the signed target is ever used.
    const hijack = new URL(click);
    hijack.searchParams.set('url', 'https://evil.example/');
    const second = await get(hijack.toString());
    expect(second.status).toBe(302);
    expect(second.headers.get('location')).toBe(`https://shoes.example/landing?utm=chat&ad_click_id=${claims.auction_id}`);
    // The CPC campaign's impression costs nothing.
    expect((await get(trackerUrl(h.url, 'view', claims))).status).toBe(200);

    expect(await spendOf(h.db, c.campaign.id)).toMatchObject({ spent: 700_000n, impressions: 1n, clicks: 1n });
    await exportedToClickhouse(h, c.campaign.id);
    expect(await clickhouseTotals(c.campaign.id)).toEqual({ rows: 2, impressions: 1, clicks: 1, spend: 700_000n });
  });

  test('a CPM campaign pays nothing for the click; an expired link still redirects, uncounted; a forged or foreign one is 404', async () => {
    const org = await newOrg(h.db);
    const c = await deliverableCampaign(h.db, org);
    const claims = c.claims(1_000_000, { url: 'https://shoes.example/' });
    expect((await get(trackerUrl(h.url, 'click', claims))).status).toBe(302);

    const old = c.claims(1_000_000, { url: 'https://shoes.example/old' });
    const expired = await get(trackerUrl(h.url, 'click', old, -5));
    expect(expired.status).toBe(302);
    expect(expired.headers.get('location')).toBe(`https://shoes.example/old?ad_click_id=${old.auction_id}`);

    const forged = await call(
      h.url,
      'GET',
      new URL(tampered(trackerUrl(h.url, 'click', claims))).pathname + new URL(tampered(trackerUrl(h.url, 'click', claims))).search,
    );
    expect(forged.status).toBe(404);
    expect(forged.body).toEqual(errorBody('not_found', 'invalid_request_error', 'token'));
    const viewToken = new URL(trackerUrl(h.url, 'view', claims)).searchParams.get('token');
    expect((await call(h.url, 'GET', `/api/v1/tracking/click?token=${viewToken}`)).status).toBe(404);
    // A signed target that is not a web page is never redirected to.
    expect((await get(trackerUrl(h.url, 'click', { ...claims, auction_id: randomUUID(), url: 'javascript:alert(1)' }))).status).toBe(404);
    const missing = await call(h.url, 'GET', '/api/v1/tracking/click');
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual(errorBody('required', 'invalid_request_error', 'token'));

    expect(await spendOf(h.db, c.campaign.id)).toMatchObject({ spent: 0n, impressions: 0n, clicks: 1n });
  });

  test("a DSP's click URL carries the DSP's view_url as a query parameter", async () => {
    const target = withViewUrl('https://dsp.example/click?c=1', 'https://dsp.example/pixel?imp=9');
    const claims: Claims = {
      auction_id: randomUUID(),
      publisher_id: randomUUID(),
      price_micros: 2_000_000,
      source: 'dsp',
      dsp_id: randomUUID(),
      bid_id: 'b',
      url: target,
    };
    const res = await get(trackerUrl(h.url, 'click', claims));
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get('location')!);
    expect(location.searchParams.get('c')).toBe('1');
    expect(location.searchParams.get('view_url')).toBe('https://dsp.example/pixel?imp=9');
  });
});

describe('budgets', () => {
  test('spend reaches the limit and never passes it: the last charge is cut to what is left; later impressions are recorded free; the lifecycle hears of it once', async () => {
    const org = await newOrg(h.db);
    const c = await deliverableCampaign(h.db, org, { limitMicros: 990_000n, maxBidMicros: 400_000_000n });
    const price = 400_000_000; // CPM 400 USD: 400,000 micros per impression
    for (let i = 0; i < 5; i += 1) expect((await get(trackerUrl(h.url, 'view', c.claims(price)))).status).toBe(200);
    const spend = await spendOf(h.db, c.campaign.id);
    // 400k, 800k, then the 190k left of 990k; the fourth and fifth were free.
    expect(spend).toMatchObject({ spent: 990_000n, impressions: 5n });
    expect(spend.exhaustedAt).toBeInstanceOf(Date);
    expect(exhausted.filter((id) => id === c.campaign.id)).toHaveLength(1);
    const charged = (await h.db.deliveryLedger.findMany({ where: { campaignId: c.campaign.id }, orderBy: { seq: 'asc' } })).map((r) => r.chargedMicros);
    expect(charged).toEqual([400_000n, 400_000n, 190_000n, 0n, 0n]);
  });
});

describe('feedback', () => {
  let dspServer: http.Server;
  let received: { body: any; at: number }[] = [];
  let failuresLeft = 0;
  let dspBase: string;
  beforeAll(async () => {
    dspServer = http.createServer((req, res) => {
      let text = '';
      req.on('data', (d) => {
        text += d;
      });
      req.on('end', () => {
        // Auctions of other test files (same database) may call it as a DSP: only feedback counts here.
        if (!req.url?.startsWith('/feedback')) {
          res.writeHead(204).end();
          return;
        }
        received.push({ body: JSON.parse(text), at: Date.now() });
        if (failuresLeft > 0) {
          failuresLeft -= 1;
          res.writeHead(500).end();
        } else res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => dspServer.listen(0, '127.0.0.1', () => r()));
    dspBase = `http://127.0.0.1:${(dspServer.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    dspServer.closeAllConnections();
    await new Promise((r) => dspServer.close(r));
  });

  async function dspWin(feedbackUrl: string): Promise<Claims> {
    const { dsp_id } = await addDsp(h.db, { name: `feedback dsp ${randomUUID()}`, protocol: 'openrtb', bidUrl: `${dspBase}/bid`, key: 'k' });
    return {
      auction_id: randomUUID(),
      publisher_id: randomUUID(),
      price_micros: 1_000_000,
      source: 'dsp',
      dsp_id,
      bid_id: 'bid-7',
      dsp_feedback_url: feedbackUrl,
    };
  }
  const sendFeedback = (claims: Claims, body: unknown) => {
    const url = new URL(trackerUrl(h.url, 'feedback', claims));
    return call(h.url, 'POST', url.pathname + url.search, { body });
  };

  test('recorded at once (204), forwarded in the background, retried while the DSP fails', async () => {
    received = [];
    failuresLeft = 2;
    const claims = await dspWin(`${dspBase}/feedback?x=1`);
    const answered = await sendFeedback(claims, { feedback: 'thumbs_down' });
    expect(answered.status).toBe(204);
    // The first verdict counts; a second one changes nothing.
    expect((await sendFeedback(claims, { feedback: 'thumbs_up' })).status).toBe(204);
    expect(await ledgerRows(h.db, [claims.auction_id])).toEqual([expect.objectContaining({ eventType: 'thumbs_down', source: 'dsp' })]);

    await until(() => received.length >= 3, 'the third attempt', 30_000);
    expect(received.map((r) => r.body)).toEqual(
      Array(3).fill({ feedback: 'thumbs_down', auction_id: claims.auction_id, bid_id: 'bid-7', timestamp: expect.any(Number) }),
    );
    // Backoff: the retries were spaced out, not fired back to back.
    expect(received[2].at - received[1].at).toBeGreaterThanOrEqual(1000);
    await until(async () => (await h.db.dspCallback.count({ where: { dspId: claims.dsp_id } })) === 0, 'the delivered callback removed');
  });

  test("the user's reason is stored with the verdict and forwarded with it", async () => {
    received = [];
    failuresLeft = 0;
    const claims = await dspWin(`${dspBase}/feedback`);
    expect((await sendFeedback(claims, { feedback: 'thumbs_down', reason: 'not_relevant' })).status).toBe(204);
    expect(await ledgerRows(h.db, [claims.auction_id])).toEqual([expect.objectContaining({ eventType: 'thumbs_down', detail: 'reason:not_relevant' })]);
    await until(() => received.some((r) => (r.body as { auction_id?: string }).auction_id === claims.auction_id), 'the forwarded feedback');
    expect(received.map((r) => r.body).filter((b) => (b as { auction_id?: string }).auction_id === claims.auction_id)).toEqual([
      { feedback: 'thumbs_down', reason: 'not_relevant', auction_id: claims.auction_id, bid_id: 'bid-7', timestamp: expect.any(Number) },
    ]);
  });

  test('a feedback_url on a host not configured for the DSP is never called', async () => {
    received = [];
    const claims = await dspWin('http://127.0.0.2:9/steal');
    expect((await sendFeedback(claims, { feedback: 'thumbs_up' })).status).toBe(204);
    await until(async () => (await h.db.dspCallback.findFirst({ where: { dspId: claims.dsp_id } }))?.lastError != null, 'the refusal recorded');
    const parked = await h.db.dspCallback.findFirstOrThrow({ where: { dspId: claims.dsp_id } });
    expect(parked.lastError).toMatch(/not on a host configured/);
    expect(parked.nextAttemptAt.getTime()).toBeGreaterThan(Date.now() + 86_400_000);
  });

  test('parked calls: adctl dsp callbacks lists them, retry puts one back in line with fresh attempts', async () => {
    const claims = await dspWin('http://127.0.0.2:9/steal');
    expect((await sendFeedback(claims, { feedback: 'thumbs_up' })).status).toBe(204);
    const parkedRow = async () => h.db.dspCallback.findFirst({ where: { dspId: claims.dsp_id, nextAttemptAt: { gt: new Date(Date.now() + 86_400_000) } } });
    await until(async () => (await parkedRow()) !== null, 'the call parked');

    const listed = await adctl('dsp', 'callbacks', '--dsp', claims.dsp_id!);
    expect(listed).toMatchObject({ code: 0, stderr: '' });
    const { parked } = JSON.parse(listed.stdout);
    expect(parked).toEqual([
      {
        id: expect.stringMatching(/^[0-9]+$/),
        dsp_id: claims.dsp_id,
        url: 'http://127.0.0.2:9/steal',
        body: expect.stringContaining(claims.auction_id),
        attempts: 1,
        last_error: expect.stringMatching(/not on a host configured/),
        created_at: expect.any(String),
      },
    ]);

    // A marker in place of its error: only a new attempt can replace it (no forwarder touches a parked call).
    const id = BigInt(parked[0].id);
    await h.db.dspCallback.update({ where: { id }, data: { lastError: 'before the retry' } });
    const retried = await adctl('dsp', 'callbacks', 'retry', parked[0].id);
    expect({ code: retried.code, out: JSON.parse(retried.stdout) }).toEqual({ code: 0, out: { retried: 1 } });
    // Back in line: a forwarder takes it again and, the host still not configured, parks it again.
    await until(async () => {
      const row = await h.db.dspCallback.findUniqueOrThrow({ where: { id } });
      return row.attempts === 1 && /not on a host configured/.test(row.lastError ?? '') && row.nextAttemptAt.getTime() > Date.now() + 86_400_000;
    }, 'attempted again and parked again');

    // Nothing that is not parked moves; bad arguments are usage errors.
    expect(JSON.parse((await adctl('dsp', 'callbacks', 'retry', '999999999999')).stdout)).toEqual({ retried: 0 });
    for (const args of [['retry'], ['retry', 'abc'], ['retry', '1', '--all']]) {
      expect((await adctl('dsp', 'callbacks', ...args)).code).toBe(2);
    }
  });

  test('bad input: 400 in the error format; a forged or expired link 404', async () => {
    const claims = await dspWin(`${dspBase}/feedback`);
    const wrong = await sendFeedback(claims, { feedback: 'meh' });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual(errorBody('invalid_value', 'invalid_request_error', 'feedback'));
    const missing = await sendFeedback(claims, {});
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual(errorBody('required', 'invalid_request_error', 'feedback'));
    const freeText = await sendFeedback(claims, { feedback: 'thumbs_down', reason: 'my email is a@b.example' });
    expect(freeText.status).toBe(400);
    expect(freeText.body).toEqual(errorBody('invalid_value', 'invalid_request_error', 'reason'));
    const forgedUrl = new URL(tampered(trackerUrl(h.url, 'feedback', claims)));
    const forged = await call(h.url, 'POST', forgedUrl.pathname + forgedUrl.search, { body: { feedback: 'thumbs_up' } });
    expect(forged.status).toBe(404);
    expect(forged.body).toEqual(errorBody('not_found', 'invalid_request_error', 'token'));
    const expiredUrl = new URL(trackerUrl(h.url, 'feedback', claims, -1));
    expect((await call(h.url, 'POST', expiredUrl.pathname + expiredUrl.search, { body: { feedback: 'thumbs_up' } })).status).toBe(404);
    expect(await ledgerRows(h.db, [claims.auction_id])).toEqual([]);
  });
});

describe("delivery on the api's metrics port", () => {
  test('impressions and clicks by source, the spend charged, and every ledger flush timed; repeats count nothing', async () => {
    const org = await newOrg(h.db);
    const c = await deliverableCampaign(h.db, org, { pricingModel: 'cpc', maxBidMicros: 700_000n });
    const claims = c.claims(7_000, { url: 'https://shoes.example/landing' });
    const before = await scrape();
    expect((await get(trackerUrl(h.url, 'view', claims))).status).toBe(200);
    expect((await get(trackerUrl(h.url, 'click', claims))).status).toBe(302);
    expect((await get(trackerUrl(h.url, 'click', claims))).status).toBe(302); // a repeat
    const after = await scrape();
    const grew = (name: string, labels: string) => sample(after, name, labels) - sample(before, name, labels);
    // Other tests of this file share the api: at least ours, and the repeat added nothing of its own kind here.
    expect(grew('api_delivery_events_total', 'type="impression",source="inhouse"')).toBeGreaterThanOrEqual(1);
    expect(grew('api_delivery_events_total', 'type="click",source="inhouse"')).toBe(1);
    expect(grew('api_delivery_spend_micros_total', 'type="click"')).toBe(700_000);
    expect(grew('api_ledger_flush_duration_ms_count', 'outcome="ok"')).toBeGreaterThanOrEqual(2);
    expect(grew('api_ledger_flush_batch_size_sum', '')).toBeGreaterThanOrEqual(3);
    // A flush is a round trip to PostgreSQL: well under 5 s here, never negative.
    const sum = grew('api_ledger_flush_duration_ms_sum', 'outcome="ok"');
    expect(sum).toBeGreaterThan(0);
    expect(sum / grew('api_ledger_flush_duration_ms_count', 'outcome="ok"')).toBeLessThan(5_000);
  });

  test('every token a tracker reads is counted by its form: compact, the earlier JSON form, or none genuine', async () => {
    const org = await newOrg(h.db);
    const c = await deliverableCampaign(h.db, org);
    const json = `${h.url}${TRACKING_PATHS.view}?token=${signToken({ ...c.claims(1_000), kind: 'view' }, 600)}`;
    const before = await scrape();
    expect((await get(trackerUrl(h.url, 'view', c.claims(1_000)))).status).toBe(200);
    expect((await get(json)).status).toBe(200);
    expect((await get(tampered(trackerUrl(h.url, 'view', c.claims(1_000))))).status).toBe(200);
    const after = await scrape();
    const grew = (labels: string) => sample(after, 'api_tracking_tokens_total', labels) - sample(before, 'api_tracking_tokens_total', labels);
    expect(grew('kind="view",form="compact"')).toBeGreaterThanOrEqual(1);
    expect(grew('kind="view",form="json"')).toBeGreaterThanOrEqual(1);
    expect(grew('kind="view",form="none"')).toBeGreaterThanOrEqual(1);
  });
});
