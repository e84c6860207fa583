/**
 * Sandbox publishers (`adctl publisher create --test`, issue 24 section 5):
 * the whole pipeline runs, DSPs get OpenRTB `test: 1`, the answer always has
 * an ad (the marked test creative when nothing bid), and nothing is billed or
 * counted: an in-house win's view and click record no ledger row, no spend, no
 * frequency event. Real auction, real api trackers, real PostgreSQL.
 */
import { randomBytes } from 'node:crypto';
import { insertTree } from '../support/fixtures';
import { newOrg } from '../support/harness';
import { useApiAndAuction } from '../support/api-and-auction';
import { addReferenceDsp, adRequest, contextualRequest, removeDsp, until } from './support';

const { api, h, live } = useApiAndAuction({}, { test: true });

/** A tracking URL of the auction's answer, sent to this test's api. */
const onApi = (url: string) => `${api.url}${new URL(url).pathname}${new URL(url).search}`;

test('nothing bid: the marked test creative, tracked but recorded nowhere', async () => {
  const { dsp, dspId } = await addReferenceDsp(h, 'openrtb', { noBidRate: 1 });
  try {
    const topic = `zq${randomBytes(4).toString('hex')}`;
    const res = await adRequest(
      h,
      contextualRequest({
        country_code: 'AQ',
        messages: [
          { role: 'user', content: `Tell me about ${topic}` },
          { role: 'assistant', content: `Here is ${topic}.` },
        ],
      }),
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      auction_id: expect.any(String),
      test: true,
      ad: expect.objectContaining({
        format: 'sponsored_message',
        headline: 'Test ad: your integration works',
        advertiser: 'Test advertiser (sandbox)',
        price: 0,
      }),
    });
    expect(dsp.received.find((r) => r.path === '/openrtb')!.body.test).toBe(1);
    expect((await fetch(onApi(res.body.ad.view_url))).status).toBe(200);
    expect((await fetch(onApi(res.body.ad.url), { redirect: 'manual' })).status).toBe(302);
    expect(await api.db.deliveryLedger.count({ where: { auctionId: res.body.auction_id } })).toBe(0);
  } finally {
    await removeDsp(h, dspId);
    await dsp.close();
  }
});

test('our ad wins a sandbox auction: served, but not billed, not counted toward caps', async () => {
  const topic = `zs${randomBytes(4).toString('hex')}`;
  const org = await newOrg(api.db);
  await api.db.adAccount.updateMany({ where: { organization: { publicId: org.org_public_id } }, data: { logoUrl: 'https://cdn.example/logo.png' } });
  const tree = await insertTree(api.db, org, {
    campaign: { status: 'active', reviewStatus: 'approved', startTime: new Date(Date.now() - 3_600_000), targetCountries: ['TV'] },
    adGroup: { contextHints: [topic], maxBidMicros: 2_000_000n },
    ad: { targetUrl: 'https://shop.example/landing' },
  });
  live.push(tree.campaign.id);
  await until(() => h.auction.deps.catalog.ads.some((a) => a.adId === tree.ad.id), 'the ad in the index');

  const request = contextualRequest({
    country_code: 'TV',
    messages: [
      { role: 'user', content: `I need ${topic}` },
      { role: 'assistant', content: `Here is ${topic}.` },
    ],
  });
  const res = await adRequest(h, request);
  expect(res.body).toMatchObject({ test: true, ad: { format: 'sponsored_message', price: 2 } });
  expect((await fetch(onApi(res.body.ad.view_url))).status).toBe(200);
  expect((await fetch(onApi(res.body.ad.url), { redirect: 'manual' })).headers.get('location')).toContain('https://shop.example/landing');
  expect(await api.db.deliveryLedger.count({ where: { auctionId: res.body.auction_id } })).toBe(0);
  expect(await api.db.campaignSpend.findUnique({ where: { campaignId: tree.campaign.id } })).toBeNull();
  expect(await api.db.frequencyEvent.count({ where: { auctionId: res.body.auction_id } })).toBe(0);
  // No cap counted it: the same user and conversation get the same ad again.
  expect((await adRequest(h, request)).body.ad).toMatchObject({ price: 2 });
});
