import type { NonBidReason } from '../non-bid';
import type { AuctionContext, BidRecord } from '../types';

/**
 * Per-DSP timeout and error tracking with back-off: after `afterFailures`
 * consecutive failures (timeouts, HTTP errors, unreachable, garbage) the DSP is
 * skipped for base * 2^(extra failures) ms (capped); the first call after the
 * pause is a probe, and one success resets it.
 */
const FAILURES: ReadonlySet<NonBidReason> = new Set(['timeout', 'dsp_http_error', 'unreachable', 'invalid_response']);

/** Reasons for which the DSP was never reached: they say nothing about it. */
const NOT_CALLED: ReadonlySet<NonBidReason> = new Set(['insufficient_time', 'format_not_supported', 'dsp_backed_off', 'invalid_request']);

/**
 * What one bid record of an auction says about its DSP's health: a failure, a
 * sign of life, or nothing. Health is shared by every publisher, so nothing one
 * caller controls counts against a DSP: sandbox traffic says nothing, a timeout
 * counts only in an auction with the full deadline (`fullTmaxMs`; a publisher's
 * shorter tmax is its own choice), and a call its input kept from being sent
 * (`invalid_request`) is no call.
 */
export function healthSignal(ctx: Pick<AuctionContext, 'publisher' | 'tmaxMs'>, r: BidRecord, fullTmaxMs: number): 'failure' | 'success' | null {
  if (r.kind === 'inhouse' || ctx.publisher.test) return null;
  if (r.outcome !== 'rejected' || !r.reason) return 'success';
  if (r.latencyMs <= 0 || NOT_CALLED.has(r.reason)) return null;
  if (!FAILURES.has(r.reason)) return 'success';
  if (r.reason === 'timeout' && ctx.tmaxMs < fullTmaxMs) return null;
  return 'failure';
}

interface State {
  consecutiveFailures: number;
  pausedUntil: number;
}

export class DspHealth {
  private readonly states = new Map<string, State>();
  constructor(private readonly opts: { afterFailures: number; baseMs: number; maxMs: number }) {}

  /** True when the DSP may be called now. */
  available(dspId: string, now = Date.now()): boolean {
    const s = this.states.get(dspId);
    return !s || s.pausedUntil <= now;
  }

  record(dspId: string, reason: NonBidReason | null, now = Date.now()) {
    const s = this.states.get(dspId) ?? { consecutiveFailures: 0, pausedUntil: 0 };
    if (reason && FAILURES.has(reason)) {
      s.consecutiveFailures += 1;
      const over = s.consecutiveFailures - this.opts.afterFailures;
      if (over >= 0) s.pausedUntil = now + Math.min(this.opts.maxMs, this.opts.baseMs * 2 ** Math.min(over, 16));
    } else {
      s.consecutiveFailures = 0;
      s.pausedUntil = 0;
    }
    this.states.set(dspId, s);
  }

  snapshot() {
    return Object.fromEntries([...this.states].map(([id, s]) => [id, { ...s }]));
  }
}
