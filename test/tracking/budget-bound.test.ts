/**
 * Budgets across processes: two auction processes serve one campaign, and its
 * impressions are tracked through two api processes, concurrently, well past
 * its budget. Spend never exceeds the limit by more than one impression's
 * price; both auctions stop serving the campaign once it is exhausted; and the
 * ClickHouse delivery rows, the spend store and the insights endpoint agree to
 * the micro afterwards.
 */
import { randomBytes } from 'node:crypto';
import pLimit from 'p-limit';
import { startApiProcess, startAuctionProcess, type ServiceProcess } from '../../dev/processes';
import { createPublisher } from '../../domain/publishers';
import { readDeliveryToken } from '../../domain/delivery/tracking-token';
import { call, newOrg, startHarness, type Harness } from '../support/harness';
import { until } from '../support/wait';
import { allExported, clickhouseTotals, deliverableCampaign, spendOf } from './support';

let h: Harness;
let apis: ServiceProcess[] = [];
let auctions: ServiceProcess[] = [];
beforeAll(async () => {
  h = await startHarness();
  const env = { NODE_ENV: 'test', RATE_LIMIT_PER_HOUR: '1000000' };
  [apis, auctions] = await Promise.all([
    Promise.all([startApiProcess(env), startApiProcess(env)]),
    Promise.all([startAuctionProcess(env), startAuctionProcess(env)]),
  ]);
}, 120_000);
afterAll(async () => {
  await Promise.all([...apis, ...auctions].map((p) => p.stop()));
  await h?.close();
});

// 100 USD CPM: 100,000 micros per impression; the limit is no multiple of it, so the last charge must be cut.
const CPM = 100_000_000;
const LIMIT = 3_050_000n;

test('two auctions and two apis under concurrent load: spend reaches the limit exactly, serving stops, everything reconciles', async () => {
  const org = await newOrg(h.db);
  const topic = `zq${randomBytes(4).toString('hex')}`;
  const c = await deliverableCampaign(h.db, org, { limitMicros: LIMIT, maxBidMicros: BigInt(CPM) });
  await h.db.campaign.update({ where: { id: c.campaign.id }, data: { targetCountries: ['AQ'] } });
  await h.db.adGroup.update({ where: { id: c.adGroup.id }, data: { contextHints: [topic] } });
  await h.db.adAccount.update({ where: { id: c.campaign.adAccountId }, data: { logoUrl: 'https://cdn.example/logo.png', url: 'https://shoes.example/' } });
  const { publisher_key } = await createPublisher(h.db, { name: `budget host ${topic}` });

  const request = (i: number) =>
    fetch(`${auctions[i % 2].url}/v1/ad_requests`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${publisher_key}` },
      body: JSON.stringify({
        userId: `u${i}`,
        chatId: `chat-${i}`,
        request_type: 'contextual',
        country_code: 'AQ',
        device: 'mobile',
        timezone: 'UTC',
        messages: [
          { role: 'user', content: `Tell me about ${topic}` },
          { role: 'assistant', content: `Here is ${topic}.` },
        ],
      }),
    }).then((r) => r.json() as Promise<{ ad: { view_url: string } | null }>);
  const ours = (viewUrl: string | undefined) =>
    viewUrl !== undefined && readDeliveryToken(new URL(viewUrl).searchParams.get('token'), 'view')?.claims.campaign_id === c.campaign.id;

  // Both auctions must have the campaign in their index before the load starts.
  await until(async () => ours((await request(0)).ad?.view_url) && ours((await request(1)).ad?.view_url), 'both auctions serving the campaign', 30_000);

  // Load: 16 workers request ads from both auctions and fire each view on one of the two apis.
  const limit = pLimit(16);
  const fired: string[] = [];
  let served = 0;
  await Promise.all(
    Array.from({ length: 160 }, (_, i) =>
      limit(async () => {
        const ad = (await request(i)).ad;
        if (!ad || !ours(ad.view_url)) return;
        served += 1;
        const view = new URL(ad.view_url);
        const res = await fetch(`${apis[i % 2].url}${view.pathname}${view.search}`);
        expect(res.status).toBe(200);
        fired.push(ad.view_url);
      }),
    ),
  );
  expect(served).toBeGreaterThan(30);

  const spend = await spendOf(h.db, c.campaign.id);
  expect(spend.exhaustedAt).not.toBeNull();
  // The last charge is cut to what was left: not one micro past the limit.
  expect(spend.spent).toBe(LIMIT);
  expect(Number(spend.impressions)).toBe(new Set(fired).size);

  // Exhausted: both auctions drop the campaign (the charge that exhausted it notified their indexes).
  await until(async () => !ours((await request(0)).ad?.view_url) && !ours((await request(1)).ad?.view_url), 'both auctions stopped serving', 10_000);

  // Reconciliation, once both apis exported what they committed.
  await allExported(h.db, c.campaign.id);
  const ch = await clickhouseTotals(c.campaign.id);
  expect(ch).toEqual({ rows: Number(spend.impressions), impressions: Number(spend.impressions), clicks: 0, spend: spend.spent });
  const charged = await h.db.deliveryLedger.aggregate({ where: { campaignId: c.campaign.id }, _sum: { chargedMicros: true } });
  expect(charged._sum.chargedMicros).toBe(spend.spent);
  const insights = await call(h.url, 'GET', `/v1/campaigns/${c.campaign.id}/insights`, { token: org.api_key });
  expect(insights.status).toBe(200);
  const reported = insights.body.data.reduce(
    (sum: { impressions: number; spend: number }, r: any) => ({ impressions: sum.impressions + r.impressions, spend: sum.spend + r.spend }),
    { impressions: 0, spend: 0 },
  );
  expect(reported.impressions).toBe(Number(spend.impressions));
  expect(Math.round(reported.spend * 1_000_000)).toBe(Number(spend.spent));
}, 180_000);
