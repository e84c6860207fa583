import type { BidCache } from '../bid-cache';
import { CallFailure, parseJson, postJson } from '../dsp/http';
import { renderBody } from '../dsp/native';
import { validateNativeCreative } from '../dsp/native-creative';
import { BidRejection, type NonBidReason } from '../non-bid';
import { headlineLimit } from '../request-schema';
import type { AuctionSettings } from '../settings';
import type { AuctionContext, BidRecord, Creative, ValidBid } from '../types';

/**
 * Stage 6, render: walk the ranking from the top; a bid with its creative wins
 * at once; a native bid without ad_data is rendered (POST render_url with the
 * realized price = its bid, first price) and the render response is validated
 * strictly. A failed render drops that bid and, while time remains, the next
 * one is tried.
 */
export interface RenderOutcome { winner: (ValidBid & { creative: Creative }) | null; failed: BidRecord[]; renderMs: number }

async function render(ctx: AuctionContext, bid: ValidBid, timeoutMs: number): Promise<Creative> {
  const dsp = bid.dsp!;
  if (!dsp.renderUrl) throw new CallFailure('render_failed', 'the DSP has no render_url', 0);
  const answer = await postJson(dsp.renderUrl, { 'content-type': 'application/json' }, renderBody(bid.bidId, bid.priceMicros), timeoutMs);
  if (answer.status !== 200) throw new CallFailure('render_failed', `render HTTP ${answer.status}`, answer.latencyMs);
  let body: unknown;
  try { body = parseJson(answer); } catch { throw new CallFailure('render_failed', 'render body is not JSON', answer.latencyMs); }
  if (typeof body !== 'object' || body === null || !('data' in body)) throw new BidRejection('invalid_ad_data', 'render response must be { data: <creative> }');
  return validateNativeCreative((body as { data: unknown }).data, {
    offered: ctx.request.ad_formats, maxHeadlineChars: headlineLimit(ctx.request, 'native'), imageEnabled: ctx.request.config.image_enabled,
  });
}

export async function renderWinner(ctx: AuctionContext, ranked: readonly ValidBid[], cache: BidCache, settings: AuctionSettings): Promise<RenderOutcome> {
  const failed: BidRecord[] = [];
  let renderMs = 0;
  for (const bid of ranked) {
    if (bid.creative) return { winner: bid as ValidBid & { creative: Creative }, failed, renderMs };
    const fail = (reason: NonBidReason, detail: string, latencyMs: number) => failed.push({
      bidderId: bid.bidderId, bidderName: bid.bidderName, kind: bid.kind, bidId: bid.bidId, priceMicros: bid.priceMicros,
      outcome: 'rejected', reason, detail, latencyMs,
    });
    const cached = cache.take(bid.bidderId, bid.bidId);
    if (!cached) { fail('render_failed', 'bid no longer cached (expired)', 0); continue; }
    const timeoutMs = Math.floor(ctx.deadlineAt - performance.now() - settings.ownWorkReserveMs);
    if (timeoutMs < settings.minDspTimeMs) { fail('timeout', `no time left to render (${timeoutMs} ms)`, 0); continue; }
    const started = performance.now();
    try {
      const creative = await render(ctx, cached, timeoutMs);
      renderMs += performance.now() - started;
      return { winner: { ...cached, creative }, failed, renderMs };
    } catch (err) {
      const latencyMs = performance.now() - started;
      renderMs += latencyMs;
      if (err instanceof CallFailure) fail(err.reason === 'unreachable' || err.reason === 'timeout' ? err.reason : 'render_failed', err.message, latencyMs);
      else if (err instanceof BidRejection) fail(err.reason, `render: ${err.message}`, latencyMs);
      else throw err;
    }
  }
  return { winner: null, failed, renderMs };
}
