import { randomUUID } from 'node:crypto';
import { conversionsByAd } from '../../domain/events/conversions';
import { organizationIdOf } from '../support/fixtures';
import { call, useHarness, newOrg } from '../support/harness';
import { clickhouse, waitForEvents } from './support';

const h = useHarness([clickhouse]);

const at = (unix: number) => new Date(unix * 1000).toISOString().slice(0, 19).replace('T', ' ');

it('attributes events to the ad of the matching delivery inside the window', async () => {
  const created = await newOrg(h.db);
  const orgId = await organizationIdOf(h.db, created);
  const [adA, adB, adC] = [randomUUID(), randomUUID(), randomUUID()];
  const t0 = Math.floor(Date.now() / 1000) - 3 * 86_400; // deliveries three days ago
  const id = (s: string) => `${s}-${randomUUID()}`;
  const clickA = id('clk');
  const impB = id('imp');
  const bidC = id('bid');
  const delivery = (event_id: string, event_type: string, ad_id: string) => ({
    event_id,
    event_type,
    event_time: at(t0),
    organization_id: orgId,
    ad_account_id: '',
    campaign_id: '',
    ad_group_id: '',
    ad_id,
    source: 'own',
    country: '',
    device: '',
    spend_micros: 0,
  });
  await clickhouse.insert({
    table: 'delivery_events',
    format: 'JSONEachRow',
    values: [delivery(clickA, 'click', adA), delivery(impB, 'impression', adB), delivery(bidC, 'auction', adC)],
  });
  const events = [
    { event_name: 'purchase', event_id: 'c1', click_id: clickA, timestamp: t0 + 2 * 86_400 }, // click, 2 days later: A
    { event_name: 'purchase', event_id: 'c2', click_id: clickA, impression_id: impB, timestamp: t0 + 60 }, // both: the click wins, A
    { event_name: 'purchase', event_id: 'c3', impression_id: impB, timestamp: t0 + 3600 }, // view-through within 1 day: B
    { event_name: 'purchase', event_id: 'c4', impression_id: impB, timestamp: t0 + 2 * 86_400 }, // view-through too late: none
    { event_name: 'purchase', event_id: 'c5', click_id: clickA, timestamp: t0 - 60 }, // before the click: none
    { event_name: 'purchase', event_id: 'c6', bid_id: bidC, timestamp: t0 + 10 }, // bid: C
    { event_name: 'purchase', event_id: 'c7', click_id: 'unknown', timestamp: t0 + 10 }, // not ours: none
  ];
  expect((await call(h.url, 'POST', '/api/collect', { token: created.api_key, body: { events } })).body.accepted).toBe(7);
  await waitForEvents(orgId, (rows) => rows.length === 7);

  const start = new Date((t0 - 86_400) * 1000);
  const end = new Date(Date.now() + 60_000);
  const rows = await conversionsByAd(clickhouse, { organizationId: orgId, adIds: [adA, adB, adC], start, end, granularity: 'none' });
  expect(rows).toEqual(
    [
      { ad_id: adA, bucket_start: t0 - 86_400, conversions: 2 },
      { ad_id: adB, bucket_start: t0 - 86_400, conversions: 1 },
      { ad_id: adC, bucket_start: t0 - 86_400, conversions: 1 },
    ].sort((x, y) => x.ad_id.localeCompare(y.ad_id)),
  );

  const daily = await conversionsByAd(clickhouse, { organizationId: orgId, adIds: [adA], start, end, granularity: 'daily' });
  const day = (unix: number) => Math.floor(unix / 86_400) * 86_400;
  expect(daily).toEqual(
    [...new Set([day(t0 + 60), day(t0 + 2 * 86_400)])].map((d) => ({
      ad_id: adA,
      bucket_start: d,
      conversions: day(t0 + 60) === day(t0 + 2 * 86_400) ? 2 : 1,
    })),
  );
  // Another organization's query sees nothing; an ad filter narrows.
  expect(await conversionsByAd(clickhouse, { organizationId: randomUUID(), adIds: [adA], start, end, granularity: 'none' })).toEqual([]);
  expect((await conversionsByAd(clickhouse, { organizationId: orgId, adIds: [adB], start, end, granularity: 'none' })).map((r) => r.ad_id)).toEqual([adB]);
});
