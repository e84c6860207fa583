import pLimit from 'p-limit';
import { CallFailure, Deadline, parseJson, postJson } from '../dsp/http';
import { nativeBidBody, nativeBidHeaders, parseNativeBid, type ParsedNativeBid } from '../dsp/native';
import { buildBidRequest, openrtbHeaders, tagIdFor } from '../dsp/openrtb';
import { parseBidResponse, type ParsedOpenRtb } from '../dsp/openrtb-response';
import { BidRejection, type NonBidReason } from '../non-bid';
import { headlineLimit } from '../request-schema';
import type { AuctionContext } from '../types';
import type { DspCall } from './2-bidder-requests';

/**
 * Stage 3, call bidders: every planned DSP call in parallel (p-limit bounds the
 * fan-out), each cut off at its own timeout, transport answers turned into
 * "bid", "no bid" or a failure reason. Creative validation is stage 4's job.
 */
export type DspAnswer = { call: DspCall; latencyMs: number } & (
  | { status: 'no_bid'; detail: string }
  | { status: 'failed'; reason: NonBidReason; detail: string }
  | { status: 'native'; bid: Extract<ParsedNativeBid, { kind: 'bid' }> }
  | { status: 'openrtb'; bid: Extract<ParsedOpenRtb, { kind: 'bid' }>; tagid: string; titleLen: number }
);

async function callNative(ctx: AuctionContext, call: DspCall, deadline: Deadline, body: string): Promise<DspAnswer> {
  const answer = await postJson(call.dsp.bidUrl, nativeBidHeaders(ctx, call.dsp), body, deadline);
  if (answer.status === 204) return { call, latencyMs: answer.latencyMs, status: 'no_bid', detail: 'HTTP 204' };
  if (answer.status !== 200) return { call, latencyMs: answer.latencyMs, status: 'failed', reason: 'dsp_http_error', detail: `HTTP ${answer.status}` };
  const parsed = parseNativeBid(parseJson(answer));
  return parsed.kind === 'no_bid'
    ? { call, latencyMs: answer.latencyMs, status: 'no_bid', detail: parsed.detail }
    : { call, latencyMs: answer.latencyMs, status: 'native', bid: parsed };
}

async function callOpenRtb(ctx: AuctionContext, call: DspCall, deadline: Deadline): Promise<DspAnswer> {
  const request = buildBidRequest(ctx, call.dsp);
  const answer = await postJson(call.dsp.bidUrl, openrtbHeaders(call.dsp), JSON.stringify(request), deadline);
  if (answer.status === 204) return { call, latencyMs: answer.latencyMs, status: 'no_bid', detail: 'HTTP 204' };
  if (answer.status !== 200) return { call, latencyMs: answer.latencyMs, status: 'failed', reason: 'dsp_http_error', detail: `HTTP ${answer.status}` };
  const parsed = parseBidResponse(answer.body.trim() === '' ? undefined : parseJson(answer), ctx.auctionId);
  if (parsed.kind === 'no_bid') return { call, latencyMs: answer.latencyMs, status: 'no_bid', detail: parsed.detail };
  return { call, latencyMs: answer.latencyMs, status: 'openrtb', bid: parsed, tagid: tagIdFor(ctx), titleLen: headlineLimit(ctx.request, 'openrtb') };
}

export async function callDsps(ctx: AuctionContext, calls: readonly DspCall[], concurrency: number): Promise<DspAnswer[]> {
  if (calls.length === 0) return [];
  // p-limit bounds the fan-out; with no more calls than the bound it would only queue them through promises.
  const limit: (run: () => Promise<DspAnswer>) => Promise<DspAnswer> = calls.length > concurrency ? pLimit(concurrency) : (run) => run();
  // The native body is the same for every native DSP: serialize it once.
  const nativeBody = calls.some((c) => c.dsp.protocol === 'native') ? JSON.stringify(nativeBidBody(ctx)) : '';
  // Calls that end at the same moment (every native DSP, every OpenRTB DSP) share one
  // deadline, counted from now: time spent queued in p-limit counts against it.
  const deadlines = new Map<number, Deadline>();
  const deadlineOf = (timeoutMs: number) => {
    let deadline = deadlines.get(timeoutMs);
    if (!deadline) deadlines.set(timeoutMs, (deadline = new Deadline(timeoutMs)));
    return deadline;
  };
  try {
    return await Promise.all(calls.map((call) => {
      const deadline = deadlineOf(call.timeoutMs);
      return limit(async (): Promise<DspAnswer> => {
        const started = performance.now();
        try {
          return call.dsp.protocol === 'native' ? await callNative(ctx, call, deadline, nativeBody) : await callOpenRtb(ctx, call, deadline);
        } catch (err) {
          const latencyMs = performance.now() - started;
          if (err instanceof CallFailure) return { call, latencyMs: err.latencyMs, status: 'failed', reason: err.reason, detail: err.message };
          if (err instanceof BidRejection) return { call, latencyMs, status: 'failed', reason: err.reason, detail: err.message };
          return { call, latencyMs, status: 'failed', reason: 'invalid_response', detail: (err as Error).message };
        }
      });
    }));
  } finally {
    for (const deadline of deadlines.values()) deadline.clear();
  }
}
