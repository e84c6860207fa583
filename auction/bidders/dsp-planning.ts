import type { DspConfig } from '../../domain/dsps';
import { dspAccess } from '../../domain/privacy';
import type { AuctionContext } from '../types';
import type { BidderPlan, PlanLimits } from './bidder';

/**
 * How a DSP is planned into an auction (stage 2, as Prebid Server): skipped
 * when it serves none of the offered formats, when the user's consent leaves it
 * only a contextual-only request and it declared it cannot bid without consent
 * (domain/privacy), or when it is backed off for failing;
 * else it gets the time left minus our reserves (own work and the network, plus
 * `extraReserveMs`: a native DSP's possible render call), and is skipped when
 * that is under the minimum.
 */
export function planDspCall(ctx: AuctionContext, dsp: DspConfig, limits: PlanLimits, servesOffered: boolean, extraReserveMs: number): BidderPlan {
  const { settings, health, now } = limits;
  if (!servesOffered) return { call: false, reason: 'format_not_supported', detail: `none of ${ctx.request.ad_formats.join(', ')} is served by this DSP` };
  if (dspAccess(ctx.privacy, dsp) === 'none')
    return { call: false, reason: 'no_consent', detail: 'no consent it can bid with, and it declared it cannot bid without consent' };
  if (!health.available(dsp.id)) return { call: false, reason: 'dsp_backed_off', detail: 'backed off after repeated failures' };
  const timeoutMs = Math.floor(ctx.deadlineAt - now - settings.ownWorkReserveMs - extraReserveMs);
  if (timeoutMs < settings.minDspTimeMs) return { call: false, reason: 'insufficient_time', detail: `${timeoutMs} ms left, minimum ${settings.minDspTimeMs}` };
  return { call: true, timeoutMs };
}

/** What a DSP's price names, in micros, for the log of a rejected bid. */
export const namedPriceMicros = (price: unknown): number | null => (typeof price === 'number' && Number.isFinite(price) ? Math.round(price * 1e6) : null);
