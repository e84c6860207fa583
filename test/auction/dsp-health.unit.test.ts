import { DspHealth, healthSignal } from '../../auction/dsp/health';
import type { NonBidReason } from '../../auction/non-bid';
import type { AuctionContext, BidRecord } from '../../auction/types';

const FULL = 2000;
const ctx = (o: { test?: boolean; tmaxMs?: number } = {}) =>
  ({ publisher: { test: o.test ?? false }, tmaxMs: o.tmaxMs ?? FULL }) as unknown as Pick<AuctionContext, 'publisher' | 'tmaxMs'>;
const record = (outcome: BidRecord['outcome'], reason: NonBidReason | null, o: Partial<BidRecord> = {}): BidRecord => ({
  bidderId: 'dsp-1',
  bidderName: 'dsp',
  kind: 'native',
  bidId: null,
  priceMicros: null,
  outcome,
  reason,
  detail: null,
  latencyMs: 12,
  ...o,
});

describe('healthSignal: what counts against a DSP shared by every publisher', () => {
  test.each<[string, ReturnType<typeof ctx>, BidRecord, 'failure' | 'success' | null]>([
    ['a bid', ctx(), record('won', null), 'success'],
    ['a no-bid answer', ctx(), record('rejected', 'no_bid'), 'success'],
    ['an HTTP error', ctx(), record('rejected', 'dsp_http_error'), 'failure'],
    ['an HTTP error under a short tmax (not a timeout)', ctx({ tmaxMs: 300 }), record('rejected', 'dsp_http_error'), 'failure'],
    ['a timeout with the full deadline', ctx(), record('rejected', 'timeout'), 'failure'],
    ["a timeout under the publisher's shorter tmax", ctx({ tmaxMs: 1999 }), record('rejected', 'timeout'), null],
    ['a call the input kept from being sent', ctx(), record('rejected', 'invalid_request'), null],
    ['not called (backed off)', ctx(), record('rejected', 'dsp_backed_off', { latencyMs: 0 }), null],
    ['not called (too little time)', ctx(), record('rejected', 'insufficient_time', { latencyMs: 0 }), null],
    ["a sandbox publisher's failure", ctx({ test: true }), record('rejected', 'unreachable'), null],
    ["a sandbox publisher's bid", ctx({ test: true }), record('won', null), null],
    ['our own bidder', ctx(), record('rejected', 'timeout', { kind: 'inhouse' }), null],
  ])('%s', (_label, c, r, expected) => {
    expect(healthSignal(c, r, FULL)).toBe(expected);
  });
});

describe('DspHealth', () => {
  test('backs off after the threshold of consecutive failures; one success resets it', () => {
    const health = new DspHealth({ afterFailures: 3, baseMs: 1000, maxMs: 8000 });
    for (let i = 0; i < 2; i += 1) health.record('d', 'timeout', 0);
    expect(health.available('d', 0)).toBe(true);
    health.record('d', 'timeout', 0);
    expect(health.available('d', 999)).toBe(false);
    expect(health.available('d', 1000)).toBe(true);
    health.record('d', null, 1000);
    expect(health.snapshot().d).toEqual({ consecutiveFailures: 0, pausedUntil: 0 });
  });
});
