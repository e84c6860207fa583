/**
 * Copies that agree (docs/deploy.md, "Process model"): two api, two auction and two worker
 * processes, compiled (`npm run serve`), over the same PostgreSQL, ClickHouse and Temporal,
 * driven at both copies at once. Each property is one that a second copy would break if any
 * state lived in one process: rate limits, idempotent creates, votes, spend, frequency caps and
 * pacing, the auctions' indexes; and a copy of each stopped under load loses nothing it accepted.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import pLimit from 'p-limit';
import { readDeliveryToken } from '../../domain/delivery/tracking-token';
import { createPublisher } from '../../domain/publishers';
import { mintPollTokens } from '../../domain/polls/poll-token';
import { stepPacing } from '../../domain/serving/pacing-store';
import { createDb, type Db } from '../../lib/db';
import { endBackgroundJobs } from '../../worker/jobs';
import { adRequest, BROWSER_UA, contextualRequest } from '../auction/support';
import { clickhouse, waitForEvents } from '../events/support';
import { insertTree, organizationIdOf } from '../support/fixtures';
import { call, newOrg } from '../support/harness';
import { burst, clearOfWindowEdge } from '../support/rate-limit';
import { intentsWhere } from '../support/stripe';
import { sleep, until } from '../support/wait';
import { allExported, clickhouseTotals, deliverableCampaign, spendOf, trackerUrl } from '../tracking/support';
import { ensureBuild, serveCompiled, type Compiled, type CompiledService } from './compiled-build';

jest.setTimeout(180_000);

const taskQueue = `copies-${process.pid}-${Date.now()}`;
const RATE_LIMIT = 60;
const env = {
  TEMPORAL_TASK_QUEUE: taskQueue,
  RATE_LIMIT_PER_HOUR: String(RATE_LIMIT),
  DELIVERY_EXPORT_INTERVAL_MS: '100',
  AUCTION_PACING_REFRESH_MS: '100',
  FREQUENCY_SYNC_MS: '100',
};

let db: Db;
let apis: Compiled[];
let auctions: Compiled[];
let workers: Compiled[];
let publisherKey: string;
beforeAll(async () => {
  ensureBuild();
  db = createDb(undefined, 4);
  const two = (service: CompiledService) => Promise.all([serveCompiled(service, env), serveCompiled(service, env)]);
  [apis, auctions, workers] = await Promise.all([two('api'), two('auction'), two('worker')]);
  ({ publisher_key: publisherKey } = await createPublisher(db, { name: `Copies host ${randomBytes(3).toString('hex')}`, domain: 'chat.example.com' }));
}, 300_000);
afterAll(async () => {
  await Promise.all([...(apis ?? []), ...(auctions ?? []), ...(workers ?? [])].map((c) => c.stop()));
  await endBackgroundJobs(taskQueue, 'copies test over');
  await db?.$disconnect();
  await clickhouse.close();
});

/** When auction copy `c` began its latest read of the pacing plan (Unix seconds), from its metrics. */
async function planReadAt(c: Compiled): Promise<number> {
  const text = await (await fetch(c.metricsUrl()!)).text();
  return Number(/^auction_pacing_plan_read_timestamp_seconds (\S+)$/m.exec(text)?.[1] ?? 0);
}

const apiUrl = (i: number) => apis[i % apis.length].url;
const HOUR = 3_600_000;

/** An ad request about `topic` from Tuvalu (no other suite targets it) to auction copy `i`. */
const ask = (i: number, topic: string, ids: { userId?: string; chatId?: string } = {}) =>
  adRequest(
    { url: auctions[i % auctions.length].url, publisherKey },
    contextualRequest({
      country_code: 'TV',
      ...ids,
      messages: [
        { role: 'user', content: `tell me about ${topic}` },
        { role: 'assistant', content: `${topic} it is` },
      ],
    }),
  );

/**
 * An in-house campaign about a topic of its own, bidding $100 CPM (above any reference DSP of
 * other suites), live once its spend row is in place, and served by both auction copies.
 */
async function liveCampaign(org: { org_public_id: string }, campaign: Record<string, unknown> = {}, spentMicros = 0n) {
  const topic = `zc${randomBytes(4).toString('hex')}`;
  await db.adAccount.updateMany({ where: { organization: { publicId: org.org_public_id } }, data: { logoUrl: 'https://cdn.example/logo.png' } });
  const tree = await insertTree(db, org, {
    campaign: { status: 'paused', reviewStatus: 'approved', startTime: new Date(Date.now() - HOUR), targetCountries: ['TV'], ...campaign },
    adGroup: { contextHints: [topic], maxBidMicros: 100_000_000n },
  });
  await db.campaignSpend.create({ data: { campaignId: tree.campaign.id, spentMicros } });
  await db.campaign.update({ where: { id: tree.campaign.id }, data: { status: 'active' } });
  const served = async (i: number) => ours(tree.campaign.id, await ask(i, topic));
  await until(async () => (await served(0)) && (await served(1)), 'both auction copies serving the campaign', 30_000);
  return { tree, topic, served };
}

/** Whether an ad answer is an impression of this campaign. */
function ours(campaignId: string, res: { body: { ad: { view_url?: string } | null } }): boolean {
  const viewUrl = res.body.ad?.view_url;
  return viewUrl !== undefined && readDeliveryToken(new URL(viewUrl).searchParams.get('token'), 'view')?.claims.campaign_id === campaignId;
}

test('rate limits are exact across copies', async () => {
  await clearOfWindowEdge();
  const org = await newOrg(db);
  const statuses = await burst([apiUrl(0), apiUrl(1)], org.api_key, RATE_LIMIT + 10);
  expect(statuses.filter((s) => s === 404)).toHaveLength(RATE_LIMIT);
  expect(statuses.filter((s) => s === 429)).toHaveLength(10);
});

test('an idempotent create retried on the other copy returns the same campaign, made and charged once', async () => {
  const org = await newOrg(db);
  const body = {
    name: `Copies ${randomUUID()}`,
    budget: { lifetime_spend_limit_micros: 25_000_000 },
    ad_groups: [{ context_hints: ['copies'], ads: [{ creative: { type: 'chat_card', title: 'Asked twice', body: 'Made once', cta: 'Shop' } }] }],
  };
  const headers = { 'Idempotency-Key': `copies-${randomUUID()}` };
  const first = await call(apiUrl(0), 'POST', '/v1/campaigns', { token: org.api_key, body, headers });
  expect(first.status).toBe(201);
  const again = await call(apiUrl(1), 'POST', '/v1/campaigns', { token: org.api_key, body, headers });
  expect(again.status).toBe(201);
  expect(again.body).toEqual(first.body);
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  expect(await db.campaign.count({ where: { organizationId: await organizationIdOf(db, org) } })).toBe(1);
  expect(await intentsWhere((i) => i.metadata.campaign_id === first.body.id)).toHaveLength(1);
});

test('a vote sent to both copies at once counts once', async () => {
  const org = await newOrg(db);
  const { ad } = await insertTree(db, org, {
    adGroup: { creativeType: 'poll' },
    ad: { creativeType: 'poll', title: 'Which copy?', body: null, options: ['A', 'B'], targetUrl: 'https://example.com/copies' },
  });
  const { voteToken } = mintPollTokens({ adId: ad.id, auctionId: `auc_${randomUUID()}`, ttlSeconds: 600 });
  const path = `/api/v1/tracking/sponsored-polls/vote?token=${encodeURIComponent(voteToken)}`;
  const answers = await Promise.all([0, 1, 0, 1, 0, 1].map((i) => call(apiUrl(i), 'POST', path, { body: { option_id: 'opt_1' } })));
  expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
  const after = await call(apiUrl(1), 'POST', path, { body: { option_id: 'opt_2' } });
  expect(after.body.data).toMatchObject({ total_votes: 1 });
  expect(after.body.data.options.map((o: { votes: number }) => o.votes)).toEqual([1, 0]);
});

test('spend reaches the limit exactly through both auctions and both apis, serving stops, and the ledger, ClickHouse and insights agree', async () => {
  // $100 CPM: 100,000 micros an impression; the limit is no multiple of it, so the last charge is cut.
  const LIMIT = 3_050_000n;
  const org = await newOrg(db);
  const { tree, topic, served } = await liveCampaign(org, { lifetimeSpendLimitMicros: LIMIT });
  const fired = new Set<string>();
  const limit = pLimit(16);
  await Promise.all(
    Array.from({ length: 120 }, (_, i) =>
      limit(async () => {
        const res = await ask(i, topic);
        if (!ours(tree.campaign.id, res)) return;
        const view = new URL(res.body.ad.view_url);
        const pixel = await fetch(`${apiUrl(i + 1)}${view.pathname}${view.search}`, { headers: { 'user-agent': BROWSER_UA } });
        expect(pixel.status).toBe(200);
        fired.add(res.body.ad.view_url);
      }),
    ),
  );
  const spend = await spendOf(db, tree.campaign.id);
  expect(spend.spent).toBe(LIMIT);
  expect(Number(spend.impressions)).toBe(fired.size);
  await until(async () => !(await served(0)) && !(await served(1)), 'both auction copies stopped serving', 10_000);
  await allExported(db, tree.campaign.id);
  expect(await clickhouseTotals(tree.campaign.id)).toEqual({ rows: fired.size, impressions: fired.size, clicks: 0, spend: LIMIT });
  const charged = await db.deliveryLedger.aggregate({ where: { campaignId: tree.campaign.id }, _sum: { chargedMicros: true } });
  expect(charged._sum.chargedMicros).toBe(LIMIT);
  const insights = await call(apiUrl(0), 'GET', `/v1/campaigns/${tree.campaign.id}/insights`, { token: org.api_key });
  expect(insights.status).toBe(200);
  const rows = insights.body.data as { impressions: number; spend: number }[];
  expect(rows.reduce((sum, r) => sum + r.impressions, 0)).toBe(fired.size);
  expect(Math.round(rows.reduce((sum, r) => sum + r.spend, 0) * 1_000_000)).toBe(Number(LIMIT));
});

test('frequency caps across the auction copies: at most one cap per copy in a burst, and each copy capped after it', async () => {
  const { topic, tree } = await liveCampaign(await newOrg(db));
  const userId = `u-${randomUUID()}`;
  const burstAnswers = await Promise.all([0, 1, 0, 1, 0, 1, 0, 1].map((i) => ask(i, topic, { userId, chatId: `c-${randomUUID()}` })));
  // Three a day per user (the default); each copy alone never passes it, together at most 2 x 3 (docs/api-behaviour.md).
  const shown = burstAnswers.filter((r) => ours(tree.campaign.id, r)).length;
  expect(shown).toBeGreaterThanOrEqual(3);
  expect(shown).toBeLessThanOrEqual(6);
  // Each copy was asked four times and shows at most three: it refused one at the cap, so it is capped now (no waiting for a sync).
  for (const i of [0, 1]) expect(ours(tree.campaign.id, await ask(i, topic, { userId, chatId: `c-${randomUUID()}` }))).toBe(false);
});

test('pacing: both auction copies apply the one plan', async () => {
  // The injected clock runs 10 minutes ahead of the real one: the copies' own pacing job never steps back over it.
  const start = Date.now() - HOUR + 600_000;
  const flight = { startTime: new Date(start), endTime: new Date(start + 10 * HOUR), lifetimeSpendLimitMicros: 10_000_000n };
  const { tree, topic } = await liveCampaign(await newOrg(db), flight, 1_990_000n);
  await stepPacing(db, start + HOUR - 10_000, { campaignIds: [tree.campaign.id] });
  await db.campaignSpend.update({ where: { campaignId: tree.campaign.id }, data: { spentMicros: 2_000_000n } });
  await stepPacing(db, start + HOUR, { campaignIds: [tree.campaign.id] });
  // Far ahead of its line (1,000,000 an hour in): a share under 5 %.
  expect((await db.campaignPacing.findUniqueOrThrow({ where: { campaignId: tree.campaign.id } })).participation).toBeLessThan(0.05);
  // Both copies apply the plan once each has read it afresh (their /metrics say when the read began).
  const written = Date.now() / 1000;
  await until(async () => (await Promise.all(auctions.map(planReadAt))).every((at) => at >= written), 'both copies read the new plan', 10_000);
  const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => ask(i, topic)));
  expect(answers.filter((r) => ours(tree.campaign.id, r)).length).toBeLessThanOrEqual(3);
});

test('a change made through one api copy reaches both auction copies within 2 s', async () => {
  const org = await newOrg(db);
  const { tree, served } = await liveCampaign(org);
  const paused = await call(apiUrl(0), 'POST', `/v1/campaigns/${tree.campaign.id}/pause`, { token: org.api_key });
  expect(paused.status).toBe(200);
  const since = Date.now();
  await until(async () => !(await served(0)) && !(await served(1)), 'the paused campaign gone from both auction copies', 10_000);
  expect(Date.now() - since).toBeLessThan(2_000);
});

/** Events, impressions and votes sent to both api copies until `stop()`; what each acknowledged. */
function steadyLoad(org: { api_key: string }, c: Awaited<ReturnType<typeof deliverableCampaign>>, pollAdId: string) {
  const acknowledged = { events: new Set<string>(), views: new Set<string>(), votes: new Set<string>() };
  let stopped = false;
  const send = async (i: number, path: string, init: RequestInit, done: () => void) => {
    try {
      const res = await fetch(`${apiUrl(i)}${path}`, init);
      await res.arrayBuffer();
      if (res.status === 200 || res.status === 204) done();
    } catch {
      await sleep(20); // that copy is down: its requests fail, the other's go on
    }
  };
  const lane = async (lane: number) => {
    for (let n = 0; !stopped; n++) {
      const marker = `k-${lane}-${n}`;
      const headers = { authorization: `Bearer ${org.api_key}`, 'content-type': 'application/json' };
      await send(n, '/api/collect', { method: 'POST', headers, body: JSON.stringify({ event_name: 'copies', event_id: marker, session_id: marker }) }, () =>
        acknowledged.events.add(marker),
      );
      const claims = c.claims(1_000);
      const view = new URL(trackerUrl('http://x', 'view', claims));
      await send(n + 1, view.pathname + view.search, {}, () => acknowledged.views.add(claims.auction_id));
      const { voteToken } = mintPollTokens({ adId: pollAdId, auctionId: marker, ttlSeconds: 600 });
      const vote = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ option_id: 'opt_1' }) };
      await send(n, `/api/v1/tracking/sponsored-polls/vote?token=${encodeURIComponent(voteToken)}`, vote, () => acknowledged.votes.add(marker));
    }
  };
  const lanes = Array.from({ length: 6 }, (_, i) => lane(i));
  return {
    acknowledged,
    stop: async () => {
      stopped = true;
      await Promise.all(lanes);
    },
  };
}

test('stopping one copy of each under load (SIGTERM, SIGKILL past 5 s) loses no accepted event, impression or vote', async () => {
  const org = await newOrg(db);
  const c = await deliverableCampaign(db, org, { limitMicros: 1_000_000_000n });
  const { ad: poll } = await insertTree(db, org, {
    adGroup: { creativeType: 'poll' },
    ad: { creativeType: 'poll', title: 'Still there?', body: null, options: ['Yes', 'No'], targetUrl: 'https://example.com/copies' },
  });
  const load = steadyLoad(org, c, poll.id);
  await until(() => load.acknowledged.views.size >= 150, '150 impressions accepted', 60_000);
  const [api, auction, worker] = [apis[0], auctions[0], workers[0]];
  await Promise.all([api.stop(5_000), auction.stop(5_000), worker.stop(5_000)]);
  apis = [apis[1]];
  auctions = [auctions[1]];
  workers = [workers[1]];
  const before = load.acknowledged.views.size;
  await until(() => load.acknowledged.views.size >= before + 150, '150 more on the copies left', 60_000);
  await load.stop();

  // Everything acknowledged is stored (a request cut off by the stop may be stored unacknowledged: a superset).
  const { events, views, votes } = load.acknowledged;
  const missing = (acknowledged: Set<string>, stored: Iterable<string>) => {
    const have = new Set(stored);
    return [...acknowledged].filter((x) => !have.has(x));
  };
  const recorded = await db.deliveryLedger.findMany({ where: { campaignId: c.campaign.id }, select: { auctionId: true } });
  expect(
    missing(
      views,
      recorded.map((r) => r.auctionId),
    ),
  ).toEqual([]);
  await allExported(db, c.campaign.id);
  expect((await clickhouseTotals(c.campaign.id)).impressions).toBe(recorded.length);
  const voted = await db.$queryRaw<{ auction_id: string }[]>`
    SELECT v.auction_id FROM poll_votes v JOIN sponsored_polls p ON p.id = v.poll_id WHERE p.ad_id = ${poll.id}::uuid`;
  expect(
    missing(
      votes,
      voted.map((v) => v.auction_id),
    ),
  ).toEqual([]);
  const organizationId = await organizationIdOf(db, org);
  const stored = await waitForEvents(
    organizationId,
    (rows) =>
      missing(
        events,
        rows.map((r) => String(r.session_id)),
      ).length === 0,
  );
  expect(
    missing(
      events,
      stored.map((r) => String(r.session_id)),
    ),
  ).toEqual([]);
  // The auction copy left still answers.
  expect((await ask(0, 'anything')).status).toBe(200);
});
