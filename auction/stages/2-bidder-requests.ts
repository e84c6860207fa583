import type { DspConfig } from '../../domain/dsps';
import { dspFormats } from '../dsp/native';
import type { DspHealth } from '../dsp/health';
import type { NonBidReason } from '../non-bid';
import type { AuctionSettings } from '../settings';
import type { AuctionContext, BidRecord } from '../types';

/**
 * Stage 2, build bidder requests: decide which bidders this auction calls and
 * how long each may take. Each DSP call gets the time left minus our reserves
 * (own work + network; plus the render budget for native DSPs, whose winner may
 * still need a render call); a DSP left with less than the minimum, one backed
 * off for failing, or one that serves none of the offered formats is skipped
 * with its reason.
 */
export interface DspCall { dsp: DspConfig; timeoutMs: number }

export function planDspCalls(
  ctx: AuctionContext, dsps: readonly DspConfig[], health: DspHealth, settings: AuctionSettings, now = performance.now(),
): { calls: DspCall[]; skipped: BidRecord[] } {
  const calls: DspCall[] = [];
  const skipped: BidRecord[] = [];
  const skip = (dsp: DspConfig, reason: NonBidReason, detail: string) => skipped.push({
    bidderId: dsp.id, bidderName: dsp.name, kind: dsp.protocol, bidId: null, priceMicros: null, outcome: 'rejected', reason, detail, latencyMs: 0,
  });
  const offered = dspFormats(ctx);
  for (const dsp of dsps) {
    if (dsp.protocol === 'native' ? offered.length === 0 : !offered.includes('sponsored_message')) {
      skip(dsp, 'format_not_supported', `none of ${ctx.request.ad_formats.join(', ')} is served by this DSP`);
      continue;
    }
    if (!health.available(dsp.id)) { skip(dsp, 'dsp_backed_off', 'backed off after repeated failures'); continue; }
    const reserve = settings.ownWorkReserveMs + (dsp.protocol === 'native' ? settings.renderReserveMs : 0);
    const timeoutMs = Math.floor(ctx.deadlineAt - now - reserve);
    if (timeoutMs < settings.minDspTimeMs) { skip(dsp, 'insufficient_time', `${timeoutMs} ms left, minimum ${settings.minDspTimeMs}`); continue; }
    calls.push({ dsp, timeoutMs });
  }
  return { calls, skipped };
}
