/**
 * Delivery tracking: impression pixels per second and their latency through a
 * real api process (each answered only after its ledger row and the campaign's
 * charge are committed to PostgreSQL), then the budget bound: many small
 * campaigns hammered past their budgets through two api processes at once.
 *
 * Throughput: after 10 s of unmeasured load at the first rate (a just-started
 * api warms up: after only 3 s the first step often missed its bound, bench/results.jsonl), open-loop steps at rising rates (BENCH_RATES, default 1000 to
 * 6000 per second; each BENCH_SECONDS long, default 5, after a 1 s warm-up),
 * every request a new auction's view URL of one CPM campaign with a budget it
 * never reaches: all of them contend for that one campaign's spend row, the
 * worst case. impressions_per_s is the highest rate sustained, every step below
 * it sustained too (every request answered, p99 under 20 ms, the goal's bound);
 * p99_ms its p99.
 * The floor, in the same steps: a control stream of CONTROL_RATE requests a second
 * to a bare server (bench/support/bare-floor.ts) alongside each step, from the same
 * load generator. floor_worst_p99_ms is its highest p99 in the steps up to
 * 3,000/s (the goal's): what the machine and the generator put into a tail with
 * the service's load on the cores but none of its work in the request.
 * Overspend: 20 campaigns with a 0.99 USD budget at a 50 USD CPM (50,000 micros
 * an impression); 60 impressions each, fired concurrently at both apis;
 * overspend = spent - limit: the charge that reaches the limit is cut to it, so at most 0.
 * BENCH_API_PROCESSES=2 spreads the throughput phase over both api processes.
 *
 *   npm run bench:tracking
 */
import { randomUUID } from 'node:crypto';
import { newAuctionId } from '../domain/ids';
import pLimit from 'p-limit';
import { startBareFloor } from './support/bare-floor';
import { CONTROL_RATE, sustainedRate, worstControlP99, type RateStep } from './support/load';
import type { Db } from '../lib/db';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const rates = (process.env.BENCH_RATES ?? '1000,2000,3000,3500,4000,5000,6000').split(',').map(Number);
const P99_LIMIT_MS = 20;
const API_PROCESSES = Number(process.env.BENCH_API_PROCESSES ?? 1);
/** The goal's range: every step up to this rate. */
const GOAL_RATE = 3_000;

async function main() {
  const { startLocalStack } = await import('../dev/local-stack');
  const stack = await startLocalStack('bench-tracking');
  const { startApiProcess } = await import('../dev/processes');
  const { createDb } = await import('../lib/db');
  const { createOrganization } = await import('../domain/organizations/service');
  const { signDeliveryToken, TRACKING_PATHS } = await import('../domain/delivery/tracking-token');

  const db = createDb();
  // BENCH_PROFILE_DIR=dir: the first api process (the one the throughput phase loads) writes a V8 CPU profile there when it stops.
  const profile = process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : [];
  const apis = await Promise.all([startApiProcess({}, profile), ...Array.from({ length: Math.max(1, API_PROCESSES - 1) }, () => startApiProcess())]);
  const org = await createOrganization(db, { name: `bench tracking ${Date.now()}`, domain: 'bench.example', withAdAccount: true });
  const organization = await db.organization.findFirstOrThrow({ where: { publicId: org.org_public_id }, include: { adAccounts: true } });
  const adAccountId = organization.adAccounts[0].id;

  /** A CPM campaign whose ad group bids `maxBidMicros` (the ledger charges at most that). */
  async function campaign(limitMicros: bigint, maxBidMicros: bigint) {
    const c = await db.campaign.create({
      data: {
        organizationId: organization.id,
        adAccountId,
        name: `bench tracking ${randomUUID()}`,
        status: 'active',
        reviewStatus: 'approved',
        startTime: new Date(Date.now() - 60_000),
        lifetimeSpendLimitMicros: limitMicros,
        recurringFrequency: 'daily',
        pricingModel: 'cpm',
        targetCountries: [],
        adGroups: {
          create: {
            name: 'g',
            contextHints: ['bench'],
            creativeType: 'chat_card',
            maxBidMicros,
            ads: { create: { name: 'a', creativeType: 'chat_card', title: 'Bench' } },
          },
        },
      },
      include: { adGroups: { include: { ads: true } } },
    });
    const group = c.adGroups[0];
    const view = (priceMicros: number) =>
      `${TRACKING_PATHS.view}?token=${signDeliveryToken(
        {
          kind: 'view',
          auction_id: newAuctionId(),
          publisher_id: 'bench',
          price_micros: priceMicros,
          source: 'inhouse',
          ad_id: group.ads[0].id,
          ad_group_id: group.id,
          campaign_id: c.id,
          organization_id: organization.id,
          ad_account_id: adAccountId,
          pricing_model: 'cpm',
          country: 'US',
          device: 'mobile',
        },
        3600,
      )}`;
    return { id: c.id, view };
  }

  // 1. Throughput and latency through one api process; 2. overspend: 20 small budgets, both apis at once.
  const unlimited = (await campaign(10n ** 15n, 2_000_000n)).view;
  const throughput = await throughputPhase(
    apis.slice(0, API_PROCESSES).map((a) => a.port),
    unlimited,
  );
  const reported = throughput.best ?? throughput.steps[0];
  console.log(await ledgerFlushSummary(apis.slice(0, API_PROCESSES)));
  const { spends, overspends, overspendMax } = await overspendPhase(db, apis, campaign);

  if (!throughput.best) console.log(`  no rate sustained with p99 under ${P99_LIMIT_MS} ms: the lowest step is reported`);
  console.log(
    `budget bound: ${spends.length} campaigns, limit ${LIMIT} micros, ${CPM / 1000} micros an impression, 60 impressions each over two api processes:`,
  );
  console.log(`  spent - limit per campaign (micros): ${overspends.map(String).join(' ')}`);
  console.log(
    `tracking impressions_per_s=${reported.perSecond.toFixed(0)} p99_ms=${reported.p99.toFixed(1)} overspend_max_micros=${overspendMax} floor_worst_p99_ms=${throughput.floorWorstP99.toFixed(1)}${API_PROCESSES > 1 ? ` api_processes=${API_PROCESSES}` : ''}`,
  );

  await Promise.all(apis.map((a) => a.stop()));
  await stack.stop();
  await db.$disconnect();
}

/** View pixels of new auctions of one campaign, open loop at rising rates, beside the control stream to the floor. */
async function throughputPhase(ports: number[], view: (priceMicros: number) => string) {
  const fmt = (s: RateStep) =>
    `  ${s.rate}/s offered: ${s.ok} answered, failed ${s.failed}; p50 ${s.p50.toFixed(1)} ms  p99 ${s.p99.toFixed(1)} ms  max ${s.latencies[s.latencies.length - 1]?.toFixed(1)} ms${s.sustained ? '' : '  (not sustained)'}` +
    `; floor p50 ${s.control?.p50.toFixed(1)} ms  p99 ${s.control?.p99.toFixed(1)} ms`;
  console.log(
    `view pixel through ${ports.length} api process${ports.length > 1 ? 'es' : ''}, open loop, ${seconds} s a step after 1 s warm-up; beside each step ${CONTROL_RATE}/s to a bare floor server:`,
  );
  let paths: string[] = [];
  const floor = await startBareFloor(200);
  const result = await sustainedRate({
    port: ports,
    rates,
    durationS: seconds,
    warmupS: 1,
    p99LimitMs: P99_LIMIT_MS,
    serverWarmupS: 10,
    // Each step's URLs are signed before it starts: signing is the auction's work, not the tracker's.
    prepare: (count) => {
      paths = Array.from({ length: count }, () => view(2_000_000));
    },
    next: () => ({ method: 'GET', path: paths.pop()! }),
    ok: (status) => status === 200,
    control: { port: floor.port, rate: CONTROL_RATE, next: () => ({ method: 'GET', path: '/' }), ok: (status) => status === 200 },
    onStep: (s) => console.log(`${fmt(s)}\n    ${s.machineCpu}`),
  });
  floor.stop();
  return { ...result, floorWorstP99: worstControlP99(result.steps, GOAL_RATE) };
}

/**
 * The throughput phase's ledger flushes, from the api processes' metrics: how many, their mean duration and
 * batch size, and how many took over 10 and 20 ms (the histogram's buckets): a pixel waits for one flush and
 * often the one before it, so slow flushes are the tracking tail.
 */
async function ledgerFlushSummary(apis: { metricsUrl(): string | null }[]) {
  let count = 0;
  let ms = 0;
  let requests = 0;
  let upTo10 = 0;
  let upTo20 = 0;
  for (const api of apis) {
    const text = await (await fetch(api.metricsUrl()!)).text();
    const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? 0);
    count += value(/_ledger_flush_duration_ms_count\{outcome="ok"\} (\S+)/);
    ms += value(/_ledger_flush_duration_ms_sum\{outcome="ok"\} (\S+)/);
    upTo10 += value(/_ledger_flush_duration_ms_bucket\{le="10",outcome="ok"\} (\S+)/);
    upTo20 += value(/_ledger_flush_duration_ms_bucket\{le="20",outcome="ok"\} (\S+)/);
    requests += value(/_ledger_flush_batch_size_sum (\S+)/);
  }
  return `ledger flushes: ${count}, mean ${(ms / count).toFixed(2)} ms, mean batch ${(requests / count).toFixed(1)} pixels, over 10 ms ${count - upTo10}, over 20 ms ${count - upTo20}`;
}

const LIMIT = 990_000n;
const CPM = 50_000_000;

/** 20 campaigns with small budgets, 60 impressions each fired at both apis at once: what each spent past its limit. */
async function overspendPhase(
  db: Db,
  apis: { url: string }[],
  campaign: (limit: bigint, maxBid: bigint) => Promise<{ id: string; view: (price: number) => string }>,
) {
  const small = await Promise.all(Array.from({ length: 20 }, () => campaign(LIMIT, BigInt(CPM))));
  const limit = pLimit(64);
  let i = 0;
  await Promise.all(
    small.flatMap(({ view }) =>
      Array.from({ length: 60 }, () =>
        limit(async () => {
          const res = await fetch(`${apis[i++ % 2].url}${view(CPM)}`);
          await res.arrayBuffer();
        }),
      ),
    ),
  );
  const spends = await db.campaignSpend.findMany({ where: { campaignId: { in: small.map((c) => c.id) } } });
  const overspends = spends.map((s) => s.spentMicros - LIMIT);
  return { spends, overspends, overspendMax: overspends.reduce((a, b) => (b > a ? b : a), -LIMIT) };
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
