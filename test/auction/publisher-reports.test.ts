/**
 * GET /v1/reports on the auction: a fresh publisher's real auctions (in-house
 * wins, a DSP win, a no fill), its impression and click pixels fired through
 * the real trackers, the ledger exported to ClickHouse; the report's rows,
 * groups and hours; in-house revenue equal to the campaign's spend to the
 * micro; another (test) publisher's traffic only in its own report; rows by
 * the conversation's category and language; the query's errors; and `adctl
 * publisher report` printing the same JSON.
 */
import { randomBytes } from 'node:crypto';
import { createPublisher } from '../../domain/publishers';
import { deliveryExportJob } from '../../jobs/delivery-export';
import { insertTree } from '../support/fixtures';
import { errorBody, newOrg, startHarness, type Harness } from '../support/harness';
import { adctl } from '../support/cli';
import { allExported, spendOf } from '../tracking/support';
import { addReferenceDsp, adRequest, BROWSER_UA, contextualRequest, startAuction, until, type AuctionHarness } from './support';
import type { ReferenceDsp } from '../../dev/reference-dsp/server';

let api: Harness;
let h: AuctionHarness;
let sandbox: AuctionHarness;
let dsp: ReferenceDsp;
let dspId: string;
const live: string[] = [];
beforeAll(async () => {
  api = await startHarness();
  h = await startAuction();
  ({ dsp, dspId } = await addReferenceDsp(h, 'native'));
  const test = await createPublisher(api.db, { name: `Sandbox ${randomBytes(3).toString('hex')}`, test: true });
  sandbox = await startAuction({}, { reusePublisherKey: test.publisher_key, publisherId: test.publisher_id });
});
afterAll(async () => {
  await api.db.campaign.updateMany({ where: { id: { in: live } }, data: { status: 'paused' } });
  await dsp?.close();
  await sandbox?.close();
  await h?.close();
  await api?.close();
});

const today = () => new Date().toISOString().slice(0, 10);
const onApi = (url: string) => `${api.url}${new URL(url).pathname}${new URL(url).search}`;
/** As the user's browser fires it: the auction's user agent (anything else is invalid traffic). */
const fire = (url: string) => fetch(onApi(url), { redirect: 'manual', headers: { 'user-agent': BROWSER_UA } }).then((r) => r.status);

async function report(query: Record<string, string>, key: string | null = h.publisherKey, base = h.url) {
  const res = await fetch(`${base}/v1/reports?${new URLSearchParams(query).toString()}`, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  return { status: res.status, body: (await res.json()) as any };
}

const topicMessages = (topic: string) => [
  { role: 'user', content: `I need ${topic}` },
  { role: 'assistant', content: `Here is ${topic}.` },
];

/** An in-house campaign (CPM 2 USD, Nauru only, a topic of its own) the auction has indexed. */
async function liveCampaign(topic: string) {
  const org = await newOrg(api.db);
  await api.db.adAccount.updateMany({ where: { organization: { publicId: org.org_public_id } }, data: { logoUrl: 'https://cdn.example/logo.png' } });
  const tree = await insertTree(api.db, org, {
    campaign: { status: 'active', reviewStatus: 'approved', startTime: new Date(Date.now() - 3_600_000), targetCountries: ['NR'] },
    adGroup: { contextHints: [topic], maxBidMicros: 2_000_000n },
  });
  live.push(tree.campaign.id);
  for (const auction of [h, sandbox]) await until(() => auction.auction.deps.catalog.ads.some((a) => a.adId === tree.ad.id), 'the ad in the index');
  return tree;
}

/** Traffic: 3 in-house wins in NR (4 pixel fires, 1 click), 1 DSP win in US, 1 no fill in US; 1 sandbox auction. */
async function traffic(topic: string) {
  const inhouse = [];
  for (let i = 0; i < 3; i++) {
    const r = await adRequest(h, contextualRequest({ country_code: 'NR', messages: topicMessages(topic) }));
    expect(r.body.ad).toMatchObject({ format: 'sponsored_message', price: 2 });
    inhouse.push(r.body.ad);
  }
  const won = await adRequest(h, contextualRequest({ country_code: 'US', messages: topicMessages(`zq${randomBytes(4).toString('hex')}`) }));
  expect(won.body.ad).toMatchObject({ price: 1.5 });
  dsp.set({ noBidRate: 1 });
  const none = await adRequest(h, contextualRequest({ country_code: 'US', messages: topicMessages(`zq${randomBytes(4).toString('hex')}`) }));
  dsp.set({ noBidRate: 0 });
  expect(none.body.ad).toBeNull();
  expect((await adRequest(sandbox, contextualRequest({ country_code: 'NR', messages: topicMessages(topic) }))).body.ad).not.toBeNull();
  // The DSP's impression is verified against the auction log: the log first.
  await Promise.all([h.auction.deps.log.flush(), sandbox.auction.deps.log.flush()]);
  for (const ad of [...inhouse, inhouse[0], won.body.ad]) expect(await fire(ad.view_url)).toBeLessThan(400);
  expect(await fire(inhouse[1].url)).toBe(302);
  return { noFillReason: none.body.no_fill_reason as string, format: won.body.ad.format as string };
}

describe('a fresh publisher', () => {
  let campaignId: string;
  let traffics: { noFillReason: string; format: string };
  let daily: any;
  beforeAll(async () => {
    const topic = `zr${randomBytes(4).toString('hex')}`;
    campaignId = (await liveCampaign(topic)).campaign.id;
    traffics = await traffic(topic);
    await api.runJob(deliveryExportJob);
    await allExported(api.db, campaignId);
    // The DSP impression may wait a turn for its auction's record: until the report has all five.
    await until(async () => {
      daily = await report({ start_date: today(), end_date: today() });
      return daily.body.totals?.impressions === 4 && daily.body.totals.requests === 5;
    }, 'the report complete');
  }, 90_000);

  test('daily: one row for the day; revenue is the campaign spend plus the DSP price, to the micro', async () => {
    const spend = await spendOf(api.db, campaignId);
    expect(spend).toMatchObject({ impressions: 3n, clicks: 1n });
    const revenueMicros = Number(spend.spent) + 1500;
    expect(Number(spend.spent)).toBe(3 * 2000);
    const totals = {
      requests: 5,
      filled: 4,
      fill_rate: 0.8,
      no_fill: { [traffics.noFillReason]: 1 },
      impressions: 4,
      clicks: 1,
      revenue: revenueMicros / 1e6,
      revenue_micros: revenueMicros,
      ecpm: revenueMicros / 4 / 1000,
      invalid_impressions: 0,
      invalid_clicks: 0,
      invalid_traffic: {},
    };
    expect(daily.status).toBe(200);
    expect(daily.body).toEqual({
      publisher_id: h.publisherId,
      test: false,
      start_date: today(),
      end_date: today(),
      granularity: 'daily',
      group_by: null,
      time_zone: 'UTC',
      currency: 'USD',
      data: [{ date: today(), ...totals }],
      totals,
    });
  });

  test('grouped by source, format and country', async () => {
    const q = { start_date: today(), end_date: today() };
    const bySource = (await report({ ...q, group_by: 'source' })).body;
    const pick = (rows: any[], key: string) =>
      rows.map((r) => ({ key: r[key], requests: r.requests, filled: r.filled, impressions: r.impressions, clicks: r.clicks }));
    expect(pick(bySource.data, 'source').sort((a, b) => String(a.key).localeCompare(String(b.key)))).toEqual(
      [
        { key: dspId, requests: 1, filled: 1, impressions: 1, clicks: 0 },
        { key: 'inhouse', requests: 3, filled: 3, impressions: 3, clicks: 1 },
        { key: null, requests: 1, filled: 0, impressions: 0, clicks: 0 },
      ].sort((a, b) => String(a.key).localeCompare(String(b.key))),
    );
    expect(bySource.data.find((r: any) => r.source === dspId)).toMatchObject({ source_name: expect.stringMatching(/^ref-native-/), revenue_micros: 1500 });
    expect(bySource.data.find((r: any) => r.source === null)).toMatchObject({ no_fill: { [traffics.noFillReason]: 1 } });

    const byFormat = (await report({ ...q, group_by: 'format' })).body;
    expect(byFormat.data.map((r: any) => [r.format, r.filled, r.impressions, r.revenue_micros])).toEqual([
      ['sponsored_message', 4, 4, daily.body.totals.revenue_micros],
      [null, 0, 0, 0],
    ]);
    const byCountry = (await report({ ...q, group_by: 'country' })).body;
    expect(byCountry.data.map((r: any) => [r.country, r.requests, r.impressions])).toEqual([
      ['NR', 3, 3],
      ['US', 2, 1],
    ]);
    for (const grouped of [bySource, byFormat, byCountry]) expect(grouped.totals).toEqual(daily.body.totals);
    expect(traffics.format).toBe('sponsored_message');
  });

  test('hourly: 24 rows of the day, in order, summing to the day', async () => {
    const hourly = await report({ start_date: today(), end_date: today(), granularity: 'hourly' });
    expect(hourly.status).toBe(200);
    expect(hourly.body.data.map((r: any) => r.hour)).toEqual(Array.from({ length: 24 }, (_, i) => `${today()}T${String(i).padStart(2, '0')}:00:00Z`));
    expect(hourly.body.totals).toEqual(daily.body.totals);
    const sum = (k: string) => hourly.body.data.reduce((s: number, r: any) => s + r[k], 0);
    expect({ requests: sum('requests'), impressions: sum('impressions'), revenue_micros: sum('revenue_micros') }).toEqual({
      requests: 5,
      impressions: 4,
      revenue_micros: daily.body.totals.revenue_micros,
    });
  });

  test("the sandbox publisher's auction is in its own report only (test: true), never billed", async () => {
    const own = await report({ start_date: today(), end_date: today() }, sandbox.publisherKey, sandbox.url);
    expect(own.body).toMatchObject({ publisher_id: sandbox.publisherId, test: true, totals: { requests: 1, filled: 1, revenue_micros: 0 } });
    // The same key on the other auction process reads the same report: it is the publisher's, not the process's.
    const elsewhere = await report({ start_date: today(), end_date: today() }, sandbox.publisherKey);
    expect(elsewhere.body).toEqual(own.body);
    expect(daily.body.totals.requests).toBe(5);
  });

  test('adctl publisher report prints the same JSON', async () => {
    const run = await adctl('publisher', 'report', h.publisherId, '--start-date', today(), '--end-date', today(), '--group-by', 'source');
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toEqual((await report({ start_date: today(), end_date: today(), group_by: 'source' })).body);
  });
});

/**
 * Issue 46: by what the conversation was about. Another fresh publisher whose DSP bids on every conversation: two about travel
 * in English, one in Spanish, two about cooking in Spanish, each ad viewed once; the rows by category (the first tier-1 IAB
 * Content Taxonomy 3.0 id, with its name) and by language count the auctions, fills and impressions of each.
 */
describe('grouped by category and language', () => {
  const TRAVEL = '653';
  const FOOD = '210';
  const conversations = [
    [
      'We are flying to Lisbon for a week in May. Which neighbourhood should we book a hotel in, and how far is the airport from the old town?',
      'Alfama and Baixa are central, and the metro runs from the airport to the centre in about twenty minutes.',
    ],
    [
      'I am planning a weekend trip to Rome by train. Which sights should we visit first, and where should we stay near the station?',
      'The Colosseum and the Forum first; hotels around Termini are convenient for the train.',
    ],
    [
      'Vamos a viajar a Lisboa en mayo con los niños. ¿En qué barrio nos conviene reservar el hotel y cómo llegamos desde el aeropuerto?',
      'Baixa y Chiado son céntricos, y el metro llega desde el aeropuerto en unos veinte minutos.',
    ],
    [
      'Quiero cocinar una paella de mariscos para seis personas este domingo. ¿Qué arroz compro y cuánto caldo de pescado necesito?',
      'Un arroz bomba va muy bien; calcula unas tres partes de caldo por cada parte de arroz.',
    ],
    [
      'Quiero cocinar una tortilla de patatas jugosa para la cena. ¿Cuántos huevos necesito para cuatro personas?',
      'Para cuatro personas, unos seis huevos y un kilo de patatas; cuájala poco para que quede jugosa.',
    ],
  ];
  let t: AuctionHarness;
  let tdsp: ReferenceDsp;
  beforeAll(async () => {
    t = await startAuction();
    ({ dsp: tdsp } = await addReferenceDsp(t, 'native'));
    const ads = [];
    for (const [user, assistant] of conversations) {
      const r = await adRequest(
        t,
        contextualRequest({
          country_code: 'US',
          messages: [
            { role: 'user', content: user },
            { role: 'assistant', content: assistant },
          ],
        }),
      );
      expect(r.body.ad).toMatchObject({ price: 1.5 });
      ads.push(r.body.ad);
    }
    // Each DSP impression is verified against the auction log: the log first.
    await t.auction.deps.log.flush();
    for (const ad of ads) expect(await fire(ad.view_url)).toBeLessThan(400);
    await until(async () => {
      await api.runJob(deliveryExportJob);
      const body = (await report({ start_date: today(), end_date: today() }, t.publisherKey, t.url)).body;
      return body.totals?.impressions === 5 && body.totals.requests === 5;
    }, 'the report complete');
  }, 90_000);
  afterAll(async () => {
    await tdsp?.close();
    await t?.close();
  });

  const rowsBy = async (group_by: string) => {
    const res = await report({ start_date: today(), end_date: today(), group_by }, t.publisherKey, t.url);
    expect(res.status).toBe(200);
    return res.body;
  };

  test('by category: each tier-1 category its requests, fills and impressions, with its name', async () => {
    const body = await rowsBy('category');
    expect(body.group_by).toBe('category');
    expect(body.data.map((r: any) => [r.category, r.category_name, r.requests, r.filled, r.impressions, r.revenue_micros])).toEqual([
      [FOOD, 'Food & Drink', 2, 2, 2, 3_000],
      [TRAVEL, 'Travel', 3, 3, 3, 4_500],
    ]);
    expect(body.totals).toEqual((await report({ start_date: today(), end_date: today() }, t.publisherKey, t.url)).body.totals);
  });

  test('by language: each ISO 639-1 code its requests, fills and impressions', async () => {
    const body = await rowsBy('language');
    expect(body.data.map((r: any) => [r.language, r.requests, r.filled, r.impressions])).toEqual([
      ['en', 2, 2, 2],
      ['es', 3, 3, 3],
    ]);
    expect(body.data[0]).not.toHaveProperty('category');
  });

  test('adctl publisher report --group-by category prints the same JSON', async () => {
    const run = await adctl('publisher', 'report', t.publisherId, '--start-date', today(), '--end-date', today(), '--group-by', 'category');
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toEqual(await rowsBy('category'));
  });
});

describe('the query', () => {
  test.each([
    [{ end_date: '2026-01-01' }, 'required', 'start_date'],
    [{ start_date: '2026-01-01' }, 'required', 'end_date'],
    [{ start_date: '2026-02-30', end_date: '2026-03-01' }, 'invalid_value', 'start_date'],
    [{ start_date: '2026-1-1', end_date: '2026-03-01' }, 'invalid_value', 'start_date'],
    [{ start_date: '2026-03-02', end_date: '2026-03-01' }, 'invalid_value', 'end_date'],
    [{ start_date: '2025-01-01', end_date: '2026-01-02' }, 'invalid_value', 'end_date'],
    [{ start_date: '2026-01-01', end_date: '2026-02-01', granularity: 'hourly' }, 'invalid_value', 'end_date'],
    [{ start_date: '2026-01-01', end_date: '2026-01-01', granularity: 'weekly' }, 'invalid_value', 'granularity'],
    [{ start_date: '2026-01-01', end_date: '2026-01-01', group_by: 'device' }, 'invalid_value', 'group_by'],
  ])('%j: 400 %s on %s', async (query, code, param) => {
    const res = await report(query);
    expect(res).toEqual({ status: 400, body: errorBody(code, 'invalid_request_error', param) });
  });

  test('the widest ranges are allowed: 366 days daily, 31 days hourly (every bucket, zeros)', async () => {
    const daily = await report({ start_date: '2024-01-01', end_date: '2024-12-31' });
    expect(daily.status).toBe(200);
    expect(daily.body.data).toHaveLength(366);
    expect(daily.body.data[59]).toEqual({
      date: '2024-02-29',
      requests: 0,
      filled: 0,
      fill_rate: 0,
      no_fill: {},
      impressions: 0,
      clicks: 0,
      revenue: 0,
      revenue_micros: 0,
      ecpm: 0,
      invalid_impressions: 0,
      invalid_clicks: 0,
      invalid_traffic: {},
    });
    const hourly = await report({ start_date: '2026-01-01', end_date: '2026-01-31', granularity: 'hourly' });
    expect(hourly.body.data).toHaveLength(31 * 24);
  });

  test('the publisher key: 401 as on the ad request, before the query is read', async () => {
    expect(await report({}, null)).toEqual({ status: 401, body: errorBody('auth_required', 'authentication_error') });
    expect(await report({}, `pk_${'x'.repeat(43)}`)).toEqual({ status: 401, body: errorBody('invalid_api_key', 'authentication_error') });
  });

  test('adctl: usage errors exit 2, an unknown publisher 1', async () => {
    const usage = await adctl('publisher', 'report', h.publisherId, '--start-date', '2026-01-01');
    expect({ code: usage.code, stdout: usage.stdout }).toEqual({ code: 2, stdout: '' });
    expect(usage.stderr).toMatch(/--end-date/);
    const unknown = await adctl('publisher', 'report', '00000000-0000-4000-8000-000000000000', '--start-date', '2026-01-01', '--end-date', '2026-01-01');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/No such publisher/);
    const bad = await adctl('publisher', 'report', h.publisherId, '--start-date', '2026-01-02', '--end-date', '2026-01-01');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/end_date/);
  });
});
