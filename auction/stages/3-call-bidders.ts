import pLimit from 'p-limit';
import type { Bidder, BidderAnswer } from '../bidders/bidder';
import { CallFailure, Deadline } from '../dsp/http';
import { BidRejection } from '../non-bid';
import type { AuctionContext } from '../types';
import type { BidderCall } from './2-bidder-requests';

/**
 * Stage 3, call bidders: every planned call in parallel (p-limit bounds the
 * fan-out of network calls), each cut off at its own timeout, answers turned
 * into "bid", "no bid" or a failure reason. Checking bids is stage 4's job.
 */
export type Answer = { bidder: Bidder; latencyMs: number } & BidderAnswer<unknown>;

async function answerOf(ctx: AuctionContext, call: BidderCall, deadline: Deadline | null): Promise<Answer> {
  const started = performance.now();
  try {
    const answer = await call.bidder.call(ctx, deadline);
    return { bidder: call.bidder, latencyMs: performance.now() - started, ...answer };
  } catch (err) {
    const latencyMs = performance.now() - started;
    if (err instanceof CallFailure) return { bidder: call.bidder, latencyMs: err.latencyMs, status: 'failed', reason: err.reason, detail: err.message };
    if (err instanceof BidRejection) return { bidder: call.bidder, latencyMs, status: 'failed', reason: err.reason, detail: err.message };
    return { bidder: call.bidder, latencyMs, status: 'failed', reason: 'invalid_response', detail: (err as Error).message };
  }
}

export async function callBidders(ctx: AuctionContext, calls: readonly BidderCall[], concurrency: number): Promise<Answer[]> {
  if (calls.length === 0) return [];
  // Network calls first, so that they are on their way while a local bidder answers from memory.
  const remote = calls.filter((c) => !c.bidder.local);
  const local = calls.filter((c) => c.bidder.local);
  // p-limit bounds the fan-out; with no more calls than the bound it would only queue them through promises.
  const limit: (run: () => Promise<Answer>) => Promise<Answer> = remote.length > concurrency ? pLimit(concurrency) : (run) => run();
  // Calls that end at the same moment share one deadline, counted from now: time queued in p-limit counts against it.
  const deadlines = new Map<number, Deadline>();
  const deadlineOf = (timeoutMs: number) => {
    let deadline = deadlines.get(timeoutMs);
    if (!deadline) deadlines.set(timeoutMs, (deadline = new Deadline(timeoutMs)));
    return deadline;
  };
  try {
    const inFlight = remote.map((call) => {
      const deadline = deadlineOf(call.timeoutMs);
      return limit(() => answerOf(ctx, call, deadline));
    });
    const answered = await Promise.all(local.map((call) => answerOf(ctx, call, null)));
    return [...(await Promise.all(inFlight)), ...answered];
  } finally {
    for (const deadline of deadlines.values()) deadline.clear();
  }
}
