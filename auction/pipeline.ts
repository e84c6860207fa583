import type { BidCache } from './bid-cache';
import type { Bidder } from './bidders/bidder';
import { bidRecord } from './bidders/bidder';
import type { Catalog } from './catalog';
import { healthSignal, type DspHealth } from './dsp/health';
import type { InhouseDeps } from './inhouse/bidder';
import type { AuctionLog } from './log/writer';
import type { AuctionMetrics } from './metrics';
import { seatNonBidCode } from './non-bid';
import type { AuctionSettings } from './settings';
import { planBidders } from './stages/2-bidder-requests';
import { callBidders } from './stages/3-call-bidders';
import { validateBids } from './stages/4-validate-bids';
import { rankBids } from './stages/5-auction';
import { renderWinner } from './stages/6-render';
import { presentAd } from './stages/7-response';
import type { AuctionContext, BidRecord, Creative, ValidBid } from './types';
import { audienceKeysOf } from './inhouse/frequency-caps';
import { noFillFields, noFillFromBids, type NoFill } from './publisher/no-fill';
import { sandboxBid } from './publisher/sandbox';
import { screenRequest, turnMarkOf } from './publisher/screen';
import { isBotUserAgent } from '../domain/delivery/invalid-traffic';
import { signalsOf } from './signals';

/**
 * One auction, stage by stage (as Prebid Server's exchange does), over every
 * bidder alike (auction/bidders/: in-house, native, OpenRTB):
 *   1 intake (route; the privacy decision: no auction for a minor)  1a what the conversation is about (auction/signals.ts)
 *   1b the publisher's screen: sensitive conversation, density
 *   2 plan bidder calls  3 call bidders with a deadline
 *   4 validate bids   5 rank (first price) 6 render (with fallback)  7 response
 * then metrics and the ClickHouse log, both off the answer's path.
 */
export interface PipelineDeps {
  catalog: Catalog;
  /** Every auction's bidders (auction/bidders/index.ts). */
  bidders: () => readonly Bidder[];
  health: DspHealth;
  cache: BidCache;
  log: AuctionLog;
  metrics: AuctionMetrics;
  settings: AuctionSettings;
  inhouse: InhouseDeps;
}

export async function runAuction(ctx: AuctionContext, deps: PipelineDeps) {
  // General invalid traffic: no bidder is asked to pay for a bot's view (the body's user_agent, else the caller's); a sandbox bills nothing.
  if (!ctx.publisher.test && isBotUserAgent(ctx.userAgent)) {
    const noFill: NoFill = { reason: 'invalid_traffic' };
    observe(ctx, deps, [], [], performance.now() - ctx.startedAt, 0, null, null, noFill);
    return answer(ctx, null, noFill);
  }
  // A child (under 13, COPPA), or a teen where the publisher allows no contextual ads: no auction (domain/privacy).
  if (ctx.privacy.noAd) {
    const noFill: NoFill = { reason: 'minor' };
    observe(ctx, deps, [], [], performance.now() - ctx.startedAt, 0, null, null, noFill);
    return answer(ctx, null, noFill);
  }
  ctx.signals = signalsOf(ctx);
  countSignals(ctx, deps.metrics);
  const screened = screenRequest(ctx, deps.inhouse.caps);
  if (screened.noFill) {
    // No auction: no bidder is called.
    const noFill: NoFill = { reason: screened.noFill, ...(screened.noFill === 'sensitive_conversation' ? { categories: screened.categories } : {}) };
    observe(ctx, deps, [], [], performance.now() - ctx.startedAt, 0, null, null, noFill);
    return answer(ctx, null, noFill);
  }
  const { calls, skipped } = planBidders(ctx, deps.bidders(), deps.health, deps.settings);
  const answers = await callBidders(ctx, calls, deps.settings.fanOutConcurrency);
  const checked = validateBids(ctx, answers, deps.cache);
  const records: BidRecord[] = [...skipped, ...checked.records];
  const ranked = rankBids(checked.valid);
  const bidderOf = new Map(answers.map((a) => [a.bidder.id, a.bidder]));
  const rendered = await renderWinner(ctx, ranked, (bid) => bidderOf.get(bid.bidderId)!, deps.cache, deps.settings);
  records.push(...rendered.failed);
  const winner = rendered.winner;
  const dropped = new Set(rendered.failed.map((r) => `${r.bidderId}\u0000${r.bidId}`));
  const latencyOf = new Map(answers.map((a) => [a.bidder.id, a.latencyMs]));
  for (const bid of ranked) {
    if (dropped.has(`${bid.bidderId}\u0000${bid.bidId}`)) continue;
    const won = winner !== null && bid.bidderId === winner.bidderId && bid.bidId === winner.bidId;
    records.push(
      bidRecord(bidderOf.get(bid.bidderId)!, won ? 'won' : 'lost', {
        bidId: bid.bidId,
        priceMicros: bid.priceMicros,
        latencyMs: latencyOf.get(bid.bidderId) ?? 0,
        inhouse: bid.inhouse,
      }),
    );
  }

  for (const a of answers) a.bidder.settle?.(ctx, winner);
  // A sandbox publisher's answer always has an ad: the test creative when nothing won.
  const shown = winner ?? (ctx.publisher.test ? sandboxBid(ctx) : null);
  if (shown) recordShowing(ctx, deps, shown);
  const ad = shown ? presentAd(ctx, shown) : null;
  const noFill = ad ? null : noFillFromBids(records);
  const elapsed = performance.now() - ctx.startedAt;
  // Our own overhead is the auction's time minus the slowest call over the network (and the render).
  const remote = answers.filter((a) => !a.bidder.local);
  const slowestCallMs = remote.reduce((max, a) => Math.max(max, a.latencyMs), 0);
  observe(
    ctx,
    deps,
    records,
    remote.map((a) => ({ dsp: a.bidder.name, ms: a.latencyMs })),
    elapsed,
    slowestCallMs + rendered.renderMs,
    shown,
    ad?.format ?? null,
    noFill,
  );
  return answer(ctx, ad, noFill);
}

/** Where device.language came from, the conversation's first category (tier 1: at most 36 values) and whether it is contextual only, per auction. */
function countSignals(ctx: AuctionContext, m: AuctionMetrics): void {
  const signals = ctx.signals;
  const source = ctx.request.language ? 'host' : (signals?.languageSource ?? 'none');
  m.signalLanguage.inc({ source });
  m.signalCategory.inc({ category: signals?.categories[0] ?? 'none' });
  // Auctions that run (a minor's no-ad answer is auction_no_fills_total{reason="minor"}): the contextual-only share, by why.
  if (!ctx.privacy.personalized) m.contextualOnly.inc({ reason: ctx.privacy.contextualReason ?? 'unknown' });
}

/** DESIGN's response: `ad`, or null and why; a sandbox publisher's answers say `test`. */
function answer(ctx: AuctionContext, ad: ReturnType<typeof presentAd> | null, noFill: NoFill | null) {
  return { auction_id: ctx.auctionId, ad, ...noFillFields(noFill), ...(ctx.publisher.test ? { test: true } : {}) };
}

/**
 * An ad shown in the conversation counts at once toward the frequency caps (ours)
 * and the conversation's density (any), provisionally until its pixel fires.
 * A sandbox publisher's ads count nowhere; a DSP's ad counts only for a
 * publisher with density settings (from when they are set).
 */
function recordShowing(ctx: AuctionContext, deps: PipelineDeps, shown: ValidBid & { creative: Creative }): void {
  const caps = deps.inhouse.caps;
  if (!caps || ctx.publisher.test) return;
  const campaignId = shown.inhouse?.campaignId ?? null;
  // Counted only where something reads it: our ads with caps on, any ad of a publisher with density settings.
  const density = ctx.publisher.maxAdsPerConversation !== null || ctx.publisher.minTurnsBetweenAds > 0;
  if (!density && !(campaignId !== null && caps.enabled)) return;
  caps.recordWin(audienceKeysOf(ctx), campaignId, ctx.auctionId, turnMarkOf(ctx.request.messages));
}

function observe(
  ctx: AuctionContext,
  deps: PipelineDeps,
  records: BidRecord[],
  calls: { dsp: string; ms: number }[],
  elapsed: number,
  waitedMs: number,
  winner: ValidBid | null,
  format: string | null,
  noFill: NoFill | null,
) {
  const m = deps.metrics;
  m.auctions.inc({ result: noFill ? 'no_fill' : 'filled' });
  if (noFill) m.noFills.inc({ reason: noFill.reason });
  if (ctx.publisher.test) m.sandbox.inc();
  const relevance = winner?.inhouse?.relevance;
  if (relevance !== undefined && Number.isFinite(relevance)) m.servedRelevance.observe(relevance);
  m.duration.observe(elapsed);
  m.overhead.observe(Math.max(0, elapsed - waitedMs));
  for (const c of calls) m.dspLatency.observe({ dsp: c.dsp }, c.ms);
  for (const r of records) {
    const signal = healthSignal(ctx, r, deps.settings.defaultTmaxMs);
    if (signal) deps.health.record(r.bidderId, signal === 'failure' ? r.reason : null);
    if (r.reason) {
      // Labelled by the DSP's name (what operators know it by: adctl dsp list), not its id.
      m.nonBids.inc({ bidder: r.bidderName, reason: r.reason, code: String(seatNonBidCode(r.reason)) });
      if (r.reason === 'timeout') m.timeouts.inc({ dsp: r.bidderName });
      if (r.reason === 'dsp_http_error' || r.reason === 'unreachable' || r.reason === 'invalid_response' || r.reason === 'render_failed')
        m.errors.inc({ dsp: r.bidderName });
    }
    m.bids.inc({ bidder: r.bidderName, outcome: r.outcome });
  }
  deps.log.record(ctx, winner, records, elapsed, format, noFill?.reason ?? '');
}
