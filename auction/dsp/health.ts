import type { NonBidReason } from '../non-bid';

/**
 * Per-DSP timeout and error tracking with back-off: after `afterFailures`
 * consecutive failures (timeouts, HTTP errors, unreachable, garbage) the DSP is
 * skipped for base * 2^(extra failures) ms (capped); the first call after the
 * pause is a probe, and one success resets it.
 */
const FAILURES: ReadonlySet<NonBidReason> = new Set(['timeout', 'dsp_http_error', 'unreachable', 'invalid_response']);

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
