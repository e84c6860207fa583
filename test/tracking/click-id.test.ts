/**
 * Click ids that attribute: the click redirect hands our advertiser's landing
 * page `ad_click_id`, and an event sent back with that `click_id` is a
 * conversion of the clicked ad in insights. From a real ad request, through
 * the real click tracker, event collection, the pipeline and the ledger export.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { withClickId } from '../../domain/delivery/tracking-token';
import { deliveryExportJob } from '../../jobs/delivery-export';
import { eventPipelineJob } from '../../jobs/event-pipeline';
import { insertTree, organizationIdOf } from '../support/fixtures';
import { waitForEvents } from '../events/support';
import { call, newOrg } from '../support/harness';
import { useApiAndAuction } from '../support/api-and-auction';
import { adRequest, BROWSER_UA, contextualRequest, until } from '../auction/support';

const { api, h, live } = useApiAndAuction();

/** A tracking URL of the auction's answer, sent to this test's api. */
const onApi = (url: string) => `${api.url}${new URL(url).pathname}${new URL(url).search}`;

test('withClickId keeps the query and the fragment', () => {
  expect(withClickId('https://shop.example/', 'a1')).toBe('https://shop.example/?ad_click_id=a1');
  expect(withClickId('https://shop.example/p?x=1&y=two%20words', 'a1')).toBe('https://shop.example/p?x=1&y=two%20words&ad_click_id=a1');
  expect(withClickId('https://shop.example/p?', 'a1')).toBe('https://shop.example/p?ad_click_id=a1');
  expect(withClickId('https://shop.example/p?x=1#offer?b=2', 'a1')).toBe('https://shop.example/p?x=1&ad_click_id=a1#offer?b=2');
});

test('ad request -> click -> landing page with ad_click_id -> event with that click_id -> a conversion of the ad in insights', async () => {
  const topic = `zc${randomBytes(4).toString('hex')}`;
  const org = await newOrg(api.db);
  await api.db.adAccount.updateMany({ where: { organization: { publicId: org.org_public_id } }, data: { logoUrl: 'https://cdn.example/logo.png' } });
  const tree = await insertTree(api.db, org, {
    campaign: { status: 'active', reviewStatus: 'approved', startTime: new Date(Date.now() - 3_600_000), targetCountries: ['NR'] },
    adGroup: { contextHints: [topic], maxBidMicros: 2_000_000n },
    ad: { targetUrl: 'https://shop.example/landing?utm_source=chat#offer' },
  });
  live.push(tree.campaign.id);
  await until(() => h.auction.deps.catalog.ads.some((a) => a.adId === tree.ad.id), 'the ad in the index');

  const served = await adRequest(
    h,
    contextualRequest({
      country_code: 'NR',
      messages: [
        { role: 'user', content: `I need ${topic}` },
        { role: 'assistant', content: `Here is ${topic}.` },
      ],
    }),
  );
  expect(served.status).toBe(200);
  expect(served.body.ad).toMatchObject({ format: 'sponsored_message' });
  // The user's browser: the auction's user agent (another would be invalid traffic, not billed or counted).
  const click = await fetch(onApi(served.body.ad.url), { redirect: 'manual', headers: { 'user-agent': BROWSER_UA } });
  expect(click.status).toBe(302);
  const landing = click.headers.get('location')!;
  expect(landing).toBe(`https://shop.example/landing?utm_source=chat&ad_click_id=${served.body.auction_id}#offer`);
  const clickId = new URL(landing).searchParams.get('ad_click_id')!;

  // The landing page sends it back with the purchase (and an unrelated click id attributes nothing).
  const events = [
    { event_name: 'purchase', event_id: randomUUID(), click_id: clickId },
    { event_name: 'purchase', event_id: randomUUID(), click_id: randomUUID() },
  ];
  expect((await call(api.url, 'POST', '/api/collect', { token: org.api_key, body: { events } })).body).toMatchObject({ accepted: 2 });
  // The test run's worker moves them too: run both jobs here, then wait for whichever mover got there.
  await api.runJob(eventPipelineJob);
  await api.runJob(deliveryExportJob);
  await waitForEvents(await organizationIdOf(api.db, org), (rows) => rows.length === 2);

  const query = 'time_granularity=none&fields[]=clicks&fields[]=conversions';
  const insights = await call(api.url, 'GET', `/v1/ads/${tree.ad.id}/insights?${query}`, { token: org.api_key });
  expect(insights.status).toBe(200);
  expect(insights.body.data).toEqual([expect.objectContaining({ ad_id: tree.ad.id, clicks: 1, conversions: 1 })]);
});
