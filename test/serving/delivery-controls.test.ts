/**
 * Delivery controls against the real services: frequency caps per user and
 * per conversation (wins count provisionally, impressions for the day),
 * shared by two auction instances that know each other only through
 * PostgreSQL; pacing driven with an injected clock, one plan read by both
 * auctions, and shown among the delivery issues.
 */
import { randomBytes } from 'node:crypto';
import { stepPacing } from '../../domain/serving/pacing-store';
import { insertTree } from '../support/fixtures';
import { call, newOrg, startHarness, type Harness } from '../support/harness';
import { sleep, until } from '../support/wait';
import { adRequest, contextualRequest, loggedBids, removeDsp, startAuction, type AuctionHarness } from '../auction/support';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { addDsp } from '../../domain/dsps';

const PROVISIONAL_MS = 1500;
const SYNC_MS = 100;
const settings = { frequencyProvisionalMs: PROVISIONAL_MS, frequencySyncMs: SYNC_MS, pacingRefreshMs: 100 };

let api: Harness;
let a: AuctionHarness;
let b: AuctionHarness;
const live: string[] = [];
beforeAll(async () => {
  api = await startHarness();
  // Two auctions of one publisher: caps count per publisher, and these two share nothing but the database.
  a = await startAuction({ settings });
  b = await startAuction({ settings }, { reusePublisherKey: a.publisherKey, publisherId: a.publisherId });
});
afterAll(async () => {
  await api.db.campaign.updateMany({ where: { id: { in: live } }, data: { status: 'paused' } });
  await b.close();
  await a.close();
  await api.close();
});

/**
 * A servable campaign both auctions have indexed, about a topic of its own, in a country no other test uses.
 * `spentMicros` is in place before the campaign goes live, so no pacing step (other suites' workers run the job) sees it without.
 */
async function liveCampaign(campaign: Record<string, unknown> = {}, spentMicros = 0n) {
  const topic = `zf${randomBytes(4).toString('hex')}`;
  const org = await newOrg(api.db);
  await api.db.adAccount.updateMany({ where: { organization: { publicId: org.org_public_id } }, data: { logoUrl: 'https://cdn.example/logo.png' } });
  const tree = await insertTree(api.db, org, {
    campaign: {
      status: 'paused',
      reviewStatus: 'approved',
      startTime: new Date(Date.now() - 3_600_000),
      targetCountries: ['NR'],
      lifetimeSpendLimitMicros: 50_000_000n,
      ...campaign,
    },
    adGroup: { contextHints: [topic], maxBidMicros: 2_000_000n },
  });
  await api.db.campaignSpend.create({ data: { campaignId: tree.campaign.id, spentMicros } });
  await api.db.campaign.update({ where: { id: tree.campaign.id }, data: { status: 'active' } });
  live.push(tree.campaign.id);
  for (const h of [a, b]) await until(() => h.auction.deps.catalog.ads.some((ad) => ad.adId === tree.ad.id), 'the ad in both indexes');
  return { org, tree, topic };
}

const ask = (h: AuctionHarness, topic: string, ids: { userId: string; chatId: string }) =>
  adRequest(
    h,
    contextualRequest({
      country_code: 'NR',
      ...ids,
      messages: [
        { role: 'user', content: `tell me about ${topic}` },
        { role: 'assistant', content: `${topic} it is` },
      ],
    }),
  );
const served = (res: { body: { ad: unknown } }) => res.body.ad !== null;
const fresh = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;
/** The ad's view pixel, through this test's api (as the chat host's page would fire it). */
async function firePixel(res: { body: { ad: { view_url: string } } }) {
  const pixel = new URL(res.body.ad.view_url);
  expect((await fetch(`${api.url}${pixel.pathname}${pixel.search}`)).status).toBe(200);
}
/** Long enough for every auction to have read everyone's writes. */
const propagated = () => sleep(4 * SYNC_MS + 200);

describe('frequency caps', () => {
  test('once per conversation by default: the second request of the chat gets no ad of the campaign; the log names the cap', async () => {
    const { topic } = await liveCampaign();
    const chatId = fresh('chat');
    expect(served(await ask(a, topic, { userId: fresh('u'), chatId }))).toBe(true);
    const second = await ask(a, topic, { userId: fresh('u'), chatId });
    expect(second.body.ad).toBeNull();
    expect((await loggedBids(a, second.body.auction_id)).find((r) => r.bidder_kind === 'inhouse')).toMatchObject({ reason: 'frequency_capped' });
    // Another conversation of another user is not capped.
    expect(served(await ask(a, topic, { userId: fresh('u'), chatId: fresh('chat') }))).toBe(true);
    // Operators see it: the in-house outcomes by reason, and the replica's size.
    await a.auction.flushInhouseStats();
    const metrics = await (await fetch(a.metricsUrl)).text();
    expect(Number(/^auction_inhouse_outcomes_total\{outcome="frequency_capped"\} (\d+)/m.exec(metrics)?.[1])).toBeGreaterThan(0);
    expect(Number(/^auction_frequency_keys (\d+)/m.exec(metrics)?.[1])).toBeGreaterThan(0);
  });

  test('three times per user per day by default, across both auctions', async () => {
    const { topic } = await liveCampaign();
    const userId = fresh('u');
    for (const h of [a, b, a]) {
      const res = await ask(h, topic, { userId, chatId: fresh('chat') });
      expect(served(res)).toBe(true);
      await firePixel(res);
      await propagated();
    }
    for (const h of [b, a]) expect(served(await ask(h, topic, { userId, chatId: fresh('chat') }))).toBe(false);
  });

  test('a win counts provisionally until its pixel fires; an impression counts for the day', async () => {
    const { topic } = await liveCampaign();
    const userId = fresh('u');
    const wins = [];
    for (let i = 0; i < 3; i += 1) wins.push(await ask(a, topic, { userId, chatId: fresh('chat') }));
    expect(wins.every(served)).toBe(true);
    expect(served(await ask(a, topic, { userId, chatId: fresh('chat') }))).toBe(false);
    // No pixel fired: the wins stop counting after the provisional time.
    await sleep(PROVISIONAL_MS + 200);
    const shown = [];
    for (let i = 0; i < 3; i += 1) shown.push(await ask(b, topic, { userId, chatId: fresh('chat') }));
    expect(shown.every(served)).toBe(true);
    // These three are seen (their pixels fire through the api): they count past the provisional time, in both auctions.
    for (const res of shown) await firePixel(res);
    await sleep(PROVISIONAL_MS + 200);
    for (const h of [a, b]) expect(served(await ask(h, topic, { userId, chatId: fresh('chat') }))).toBe(false);
  });

  test("worst case: a burst faster than the auctions can tell each other reaches each one's cap at most", async () => {
    const { topic } = await liveCampaign();
    const userId = fresh('u');
    const burst = await Promise.all([a, b, a, b, a, b, a, b].map((h) => ask(h, topic, { userId, chatId: fresh('chat') })));
    const shown = burst.filter(served).length;
    // Each auction alone never passes the cap; together at most 2 x 3 (docs/api-behaviour.md states it).
    expect(shown).toBeGreaterThanOrEqual(3);
    expect(shown).toBeLessThanOrEqual(6);
    await propagated();
    for (const h of [a, b]) expect(served(await ask(h, topic, { userId, chatId: fresh('chat') }))).toBe(false);
  });
});

/**
 * A native DSP that holds every bid request until `size` are waiting (or `maxWaitMs` passed),
 * then answers them all with no bid: the auctions calling it are all between their cap check
 * and their outcome at once, whatever the machine's load.
 */
async function barrierDsp(size: number, maxWaitMs: number) {
  let waiting: http.ServerResponse[] = [];
  const release = () => {
    for (const res of waiting) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: {} }));
    waiting = [];
  };
  const server = http.createServer((req, res) => {
    req.resume().on('end', () => {
      waiting.push(res);
      if (waiting.length >= size) release();
      else setTimeout(release, maxWaitMs).unref();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise((resolve) => server.close(resolve)) };
}

describe('frequency caps within one auction', () => {
  test('auctions of one user in flight together (all waiting on a DSP) show a campaign at most the cap', async () => {
    const one = await startAuction({ settings });
    const dsp = await barrierDsp(8, 1_500);
    const { dsp_id } = await addDsp(one.db, {
      name: `barrier-${randomBytes(3).toString('hex')}`,
      protocol: 'native',
      bidUrl: `${dsp.url}/native/bid`,
      renderUrl: `${dsp.url}/native/render`,
      key: `dspkey_${randomBytes(8).toString('hex')}`,
    });
    try {
      one.dspIds.add(dsp_id);
      await until(() => one.auction.deps.catalog.dsps.some((d) => d.id === dsp_id), 'the DSP in the catalog');
      const { topic, tree } = await liveCampaign();
      await until(() => one.auction.deps.catalog.ads.some((ad) => ad.adId === tree.ad.id), 'the ad in the index');
      const userId = fresh('u');
      const answers = await Promise.all(Array.from({ length: 8 }, () => ask(one, topic, { userId, chatId: fresh('chat') })));
      expect(answers.map((r) => r.status)).toEqual(Array(8).fill(200));
      // Three a day per user: every one of the eight checked the cap before any had won.
      expect(answers.filter(served)).toHaveLength(3);
      expect(served(await ask(one, topic, { userId, chatId: fresh('chat') }))).toBe(false);
    } finally {
      await removeDsp(one, dsp_id);
      await dsp.close();
      await one.close();
    }
  });
});

describe('pacing', () => {
  const HOUR = 3_600_000;

  test('driven with an injected clock: ahead of its line the campaign bids on a share, behind on everything; both auctions apply one plan', async () => {
    // The injected clock runs 10 minutes ahead of the real one: the pacing job of other suites' workers (real clock) never steps back over it.
    const AHEAD = 600_000;
    const start = Date.now() - HOUR + AHEAD;
    const { org, tree, topic } = await liveCampaign(
      {
        startTime: new Date(start),
        endTime: new Date(start + 10 * HOUR),
        lifetimeSpendLimitMicros: 10_000_000n,
      },
      1_990_000n,
    );
    const id = tree.campaign.id;
    const spend = (micros: number) =>
      api.db.campaignSpend.upsert({
        where: { campaignId: id },
        create: { campaignId: id, spentMicros: BigInt(micros) },
        update: { spentMicros: BigInt(micros) },
      });
    const planOf = () => api.db.campaignPacing.findUniqueOrThrow({ where: { campaignId: id } });

    // An hour in, the line is at 1,000,000. Two steps 10 s apart observe the spend rate; far ahead, a small share.
    await stepPacing(api.db, start + HOUR - 10_000, { campaignIds: [id] });
    expect((await planOf()).participation).toBe(1);
    await spend(2_000_000);
    await stepPacing(api.db, start + HOUR, { campaignIds: [id] });
    const plan = await planOf();
    expect(plan).toMatchObject({ plannedSpentMicros: 1_000_000n, observedSpentMicros: 2_000_000n });
    expect(plan.participation).toBeLessThan(0.05);
    for (const h of [a, b]) await until(() => h.auction.deps.inhouse.pacing!.participationOf(id) === plan.participation, 'the plan in both auctions');

    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => ask(i % 2 ? a : b, topic, { userId: fresh('u'), chatId: fresh('chat') })));
    expect(answers.filter(served).length).toBeLessThanOrEqual(3);
    const delivery = await call(api.url, 'GET', `/v1/campaigns/${id}/delivery`, { token: org.api_key });
    expect(delivery.body.issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          code: 'paced',
          severity: 'limiting',
          details: expect.objectContaining({ actual_spend_micros: 2_000_000 }),
        }),
      ]),
    );
    // The endpoint shows the controller's last plan: the line where its step put it.
    const paced = delivery.body.issues.find((i: { code: string }) => i.code === 'paced');
    expect(paced.details.planned_spend_micros).toBe(1_000_000);
    // Said as people read it ("1 in 40 of the auctions"), not as a bare fraction, with why and what to do.
    expect(paced.message).toContain(`enters 1 in ${Math.round(1 / plan.participation)} of the auctions`);
    expect(paced.message).toContain('$2.00 is spent where $1.00 was planned');
    expect(paced.action).toMatch(/larger budget or a later end time/);
    expect(delivery.body.delivery_status).toBe('limited');

    // Behind its line: everything again.
    await spend(500_000);
    await stepPacing(api.db, start + HOUR + 10_000, { campaignIds: [id] });
    expect((await planOf()).participation).toBe(1);
    for (const h of [a, b]) await until(() => h.auction.deps.inhouse.pacing!.participationOf(id) === 1, 'full participation in both auctions');
    expect(served(await ask(a, topic, { userId: fresh('u'), chatId: fresh('chat') }))).toBe(true);
  });

  test('a step never goes back in time: a plan observed later than the step is left as it is', async () => {
    const { tree } = await liveCampaign({ endTime: new Date(Date.now() + 10 * HOUR) });
    const later = Date.now() + 60_000;
    await stepPacing(api.db, later, { campaignIds: [tree.campaign.id] });
    const plan = await api.db.campaignPacing.findUniqueOrThrow({ where: { campaignId: tree.campaign.id } });
    await stepPacing(api.db, later - 30_000, { campaignIds: [tree.campaign.id] });
    expect(await api.db.campaignPacing.findUniqueOrThrow({ where: { campaignId: tree.campaign.id } })).toEqual(plan);
  });

  test('of two steps that read before either wrote, the later observation stays', async () => {
    const { tree } = await liveCampaign({ endTime: new Date(Date.now() + 10 * HOUR) });
    const scope = { campaignIds: [tree.campaign.id] };
    const later = Date.now() + 60_000;
    for (let i = 0; i < 10; i++) {
      await api.db.campaignPacing.deleteMany({ where: { campaignId: tree.campaign.id } });
      await Promise.all([stepPacing(api.db, later + i, scope), stepPacing(api.db, later + i - 30_000, scope)]);
      const plan = await api.db.campaignPacing.findUniqueOrThrow({ where: { campaignId: tree.campaign.id } });
      expect(plan.observedAt.getTime()).toBe(later + i);
      expect(Math.abs(plan.updatedAt.getTime() - Date.now())).toBeLessThan(60_000);
    }
  });

  test('an open-ended campaign is not paced, and a campaign that stopped pacing loses its plan', async () => {
    const { tree } = await liveCampaign();
    await stepPacing(api.db, Date.now(), { campaignIds: [tree.campaign.id] });
    expect(await api.db.campaignPacing.findUnique({ where: { campaignId: tree.campaign.id } })).toBeNull();
  });
});
