/**
 * Pacing: the real controller (domain/serving/pacing-store.ts stepPacing), the
 * real in-house bidder (auction/inhouse/bidder.ts, reading the plan through
 * its PacingGate) and the real spend store (the delivery ledger in PostgreSQL).
 *
 *  1. Simulated clock: a 24-hour flight compressed into about a minute, under a
 *     diurnal traffic curve (peak 10x trough) worth 5x the budget: each
 *     simulated minute, that minute's ad requests go through the bidder, every
 *     bid wins and its impression is charged through the ledger at the
 *     simulated time; the controller steps every simulated minute. The flight
 *     lies two days ahead of the real clock, so a running worker's pacing job
 *     leaves it alone.
 *  2. Real clock: a 10-minute flight (BENCH_REALTIME_SECONDS), the same curve,
 *     the controller stepping every PACING_INTERVAL_MS and the gate refreshing
 *     every AUCTION_PACING_REFRESH_MS, as in the services.
 *
 * Deviation is |spent - planned| / planned, from 5% of the flight on, counted
 * whenever traffic allows: at steps where the campaign was held back or ahead
 * (behind its line while bidding on everything, the traffic was short). The
 * raw figure, every step counted, is printed beside it. Goal: max deviation
 * <= 10, delivered >= 95.
 *
 *   npm run bench:pacing
 */
import { randomUUID } from 'node:crypto';
import { benchAuctionContext } from './support/auction-context';
import type { Db } from '../lib/db';
import type { DeliveryLedgerWriter } from '../domain/delivery/ledger';
import type { IndexedAd } from '../auction/inhouse/ad-index';
import { plannedSpend } from '../domain/serving/pacing';
import type { PacingGate } from '../auction/inhouse/pacing-gate';

const DAY_MS = 86_400_000;
const REALTIME_S = Number(process.env.BENCH_REALTIME_SECONDS ?? 600);
const PRICE_CPM_MICROS = 2_000_000; // 2 USD CPM: 2,000 micros an impression
const TRAFFIC_TIMES_BUDGET = 5;
/** Diurnal: rate(t) = mean (1 + A sin(...)), peak / trough = (1 + A) / (1 - A) = 10. */
const A = 9 / 11;

interface Flight {
  startMs: number;
  endMs: number;
  limitMicros: number;
}
interface Outcome {
  maxDeviationPct: number;
  rawDeviationPct: number;
  deliveredPct: number;
  steps: number;
}

/** Requests per second at `t` of a flight of `lengthMs` whose requests are worth `times` its budget. */
function trafficRate(f: Flight, t: number): number {
  const mean = (TRAFFIC_TIMES_BUDGET * f.limitMicros) / (PRICE_CPM_MICROS / 1000) / ((f.endMs - f.startMs) / 1000);
  return mean * (1 + A * Math.sin((2 * Math.PI * (t - f.startMs)) / (f.endMs - f.startMs) - Math.PI / 2));
}

class DeviationMeter {
  max = 0;
  raw = 0;
  steps = 0;
  constructor(private readonly f: Flight) {}
  observe(nowMs: number, spent: number, participation: number) {
    if (nowMs < this.f.startMs + 0.05 * (this.f.endMs - this.f.startMs)) return;
    const planned = plannedSpend(this.f, nowMs);
    const deviation = Math.abs(spent - planned) / planned;
    this.steps += 1;
    this.raw = Math.max(this.raw, deviation);
    if (participation < 1 || spent > planned) this.max = Math.max(this.max, deviation);
  }
  outcome(spent: number): Outcome {
    return {
      maxDeviationPct: round(this.max * 100),
      rawDeviationPct: round(this.raw * 100),
      deliveredPct: round((100 * spent) / this.f.limitMicros),
      steps: this.steps,
    };
  }
}
const round = (x: number) => Math.round(x * 10) / 10;

async function main() {
  const { createDb, createPgPool } = await import('../lib/db');
  const { createDeliveryLedger } = await import('../domain/delivery/ledger');
  const db = createDb();
  const pool = createPgPool(undefined, 4);
  const ledger = createDeliveryLedger(pool);
  try {
    const simulated = await simulatedFlight(db, ledger);
    console.log(
      `simulated 24 h flight: max deviation ${simulated.maxDeviationPct}% (raw ${simulated.rawDeviationPct}%), delivered ${simulated.deliveredPct}%, ${simulated.steps} steps`,
    );
    const realtime = await realtimeFlight(db, ledger);
    console.log(
      `real-clock ${REALTIME_S} s flight: max deviation ${realtime.maxDeviationPct}% (raw ${realtime.rawDeviationPct}%), delivered ${realtime.deliveredPct}%, ${realtime.steps} steps`,
    );
    console.log(
      `pacing max_deviation_pct=${simulated.maxDeviationPct} delivered_pct=${simulated.deliveredPct} realtime_deviation_pct=${realtime.maxDeviationPct}`,
    );
  } finally {
    await pool.end();
    await db.$disconnect();
  }
}

/** A paced CPM campaign of its own, indexed as the auction would index it. */
async function benchCampaign(db: Db, f: Flight) {
  const { createOrganization } = await import('../domain/organizations/service');
  const { approveCampaignCreatives } = await import('../domain/creatives/review');
  const { loadIndexedAds } = await import('../auction/inhouse/ad-index');
  const org = await createOrganization(db, { name: `bench pacing ${randomUUID()}`, domain: 'pacing.example', withAdAccount: true });
  const organization = await db.organization.findFirstOrThrow({ where: { publicId: org.org_public_id }, include: { adAccounts: true } });
  const account = organization.adAccounts[0];
  await db.adAccount.update({ where: { id: account.id }, data: { logoUrl: 'https://pacing.example/logo.png' } });
  const campaign = await db.campaign.create({
    data: {
      organizationId: organization.id,
      adAccountId: account.id,
      name: `bench pacing ${randomUUID()}`,
      status: 'active',
      reviewStatus: 'approved',
      startTime: new Date(f.startMs),
      endTime: new Date(f.endMs),
      lifetimeSpendLimitMicros: BigInt(f.limitMicros),
      recurringFrequency: 'daily',
      pricingModel: 'cpm',
      targetCountries: [],
      adGroups: {
        create: {
          name: 'g',
          contextHints: ['pacing'],
          creativeType: 'chat_card',
          maxBidMicros: BigInt(PRICE_CPM_MICROS),
          ads: { create: { name: 'a', creativeType: 'chat_card', title: 'Paced evenly' } },
        },
      },
    },
  });
  await db.$transaction((tx) => approveCampaignCreatives(tx, campaign.id));
  const ad = (await loadIndexedAds(db)).find((a) => a.campaignId === campaign.id);
  if (!ad) throw new Error('the bench campaign is not in the index');
  return { campaignId: campaign.id, ad };
}

/** One request through the bidder; a bid wins and is charged at `atMs`. */
async function serve(ad: IndexedAd, gate: PacingGate, ledger: DeliveryLedgerWriter, atMs: number) {
  const { inhouseBid } = await import('../auction/inhouse/bidder');
  const { priorCtr, alwaysOpenBudget } = await import('../auction/inhouse/eligibility');
  const ctx = benchAuctionContext({ country_code: 'US', ad_formats: ['sponsored_message'] });
  const { bid } = inhouseBid(ctx, [ad], { budget: alwaysOpenBudget, ctr: priorCtr, pacing: gate }, atMs);
  if (!bid?.inhouse) return;
  const i = bid.inhouse;
  await ledger.record({
    type: 'impression',
    time: new Date(atMs),
    claims: {
      kind: 'view',
      auction_id: ctx.auctionId,
      publisher_id: 'bench',
      price_micros: bid.priceMicros,
      source: 'inhouse',
      ad_id: i.adId,
      ad_group_id: i.adGroupId,
      campaign_id: i.campaignId,
      organization_id: i.organizationId,
      ad_account_id: i.adAccountId,
      pricing_model: 'cpm',
      country: 'US',
      device: 'mobile',
    },
  });
}

const spentOf = async (db: Db, campaignId: string) => Number((await db.campaignSpend.findUnique({ where: { campaignId } }))?.spentMicros ?? 0n);

async function simulatedFlight(db: Db, ledger: DeliveryLedgerWriter): Promise<Outcome> {
  const { stepPacing } = await import('../domain/serving/pacing-store');
  const { PacingGate } = await import('../auction/inhouse/pacing-gate');
  const start = Math.ceil((Date.now() + 2 * DAY_MS) / 60_000) * 60_000;
  const f: Flight = { startMs: start, endMs: start + DAY_MS, limitMicros: 20_000_000 };
  const { campaignId, ad } = await benchCampaign(db, f);
  const gate = new PacingGate(db, 60_000);
  gate.adopt([ad]);
  const meter = new DeviationMeter(f);
  let carry = 0;
  for (let t = f.startMs; t < f.endMs; t += 60_000) {
    await stepPacing(db, t, { campaignIds: [campaignId] });
    await gate.refresh();
    meter.observe(t, await spentOf(db, campaignId), gate.participationOf(campaignId));
    // This simulated minute's requests, spread over it.
    const exact = trafficRate(f, t) * 60 + carry;
    const n = Math.floor(exact);
    carry = exact - n;
    await Promise.all(Array.from({ length: n }, (_, k) => serve(ad, gate, ledger, t + Math.floor((k * 60_000) / Math.max(1, n)))));
  }
  return meter.outcome(await spentOf(db, campaignId));
}

async function realtimeFlight(db: Db, ledger: DeliveryLedgerWriter): Promise<Outcome> {
  const { stepPacing } = await import('../domain/serving/pacing-store');
  const { PacingGate } = await import('../auction/inhouse/pacing-gate');
  const { config } = await import('../lib/config');
  const start = Date.now() + 2_000;
  const f: Flight = { startMs: start, endMs: start + REALTIME_S * 1000, limitMicros: 5_000_000 };
  const { campaignId, ad } = await benchCampaign(db, f);
  const gate = new PacingGate(db, config.pacing.auctionRefreshMs);
  gate.adopt([ad]);
  await gate.start();
  const meter = new DeviationMeter(f);
  const controller = setInterval(() => {
    void stepPacing(db, Date.now(), { campaignIds: [campaignId] }).then(async () =>
      meter.observe(Date.now(), await spentOf(db, campaignId), gate.participationOf(campaignId)),
    );
  }, config.pacing.intervalMs);
  let carry = 0;
  const pending: Promise<void>[] = [];
  while (Date.now() < f.endMs) {
    const tick = Date.now();
    const exact = trafficRate(f, Math.max(tick, f.startMs)) / 10 + carry;
    const n = Math.floor(exact);
    carry = exact - n;
    if (tick >= f.startMs) for (let k = 0; k < n; k += 1) pending.push(serve(ad, gate, ledger, Date.now()));
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 100 - (Date.now() - tick))));
  }
  clearInterval(controller);
  gate.close();
  await Promise.all(pending);
  return meter.outcome(await spentOf(db, campaignId));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
