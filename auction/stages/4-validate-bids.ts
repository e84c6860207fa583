import type { BidCache } from '../bid-cache';
import { bidPriceMicros, validateNativeCreative } from '../dsp/native-creative';
import { validateNativeAdm } from '../dsp/openrtb-response';
import { BidRejection } from '../non-bid';
import { headlineLimit } from '../request-schema';
import type { AuctionContext, BidRecord, ValidBid } from '../types';
import type { DspAnswer } from './3-call-bidders';

/**
 * Stage 4, validate bids: price (>= 0, banker's rounding to cents), floor, and
 * the creative by protocol (native ad_data strictly; OpenRTB Native 1.2 assets
 * and tagid rules). Native bids without ad_data are cached for render.
 * Every answer that is not a valid bid becomes a record with one reason.
 */
export function validateDspAnswers(ctx: AuctionContext, answers: readonly DspAnswer[], cache: BidCache): { valid: ValidBid[]; records: BidRecord[] } {
  const valid: ValidBid[] = [];
  const records: BidRecord[] = [];
  for (const answer of answers) {
    const { dsp } = answer.call;
    const base = { bidderId: dsp.id, bidderName: dsp.name, kind: dsp.protocol, latencyMs: answer.latencyMs } as const;
    if (answer.status === 'no_bid' || answer.status === 'failed') {
      records.push({ ...base, bidId: null, priceMicros: null, outcome: 'rejected', reason: answer.status === 'no_bid' ? 'no_bid' : answer.reason, detail: answer.detail });
      continue;
    }
    const bidId = answer.bid.bidId;
    try {
      const priceMicros = bidPriceMicros(answer.bid.price);
      let creative;
      if (answer.status === 'native') {
        const adData = answer.bid.adData;
        creative = adData === undefined || adData === null ? null : validateNativeCreative(adData, {
          offered: ctx.request.ad_formats, maxHeadlineChars: headlineLimit(ctx.request, 'native'), imageEnabled: ctx.request.config.image_enabled,
        });
      } else {
        creative = validateNativeAdm(answer.bid.adm, answer.tagid, answer.titleLen, answer.bid.adomain);
      }
      if (priceMicros < ctx.floorMicros) throw new BidRejection('below_floor', `bid ${priceMicros / 1e6} is below the floor ${ctx.floorMicros / 1e6}`);
      const bid: ValidBid = { bidderId: dsp.id, bidderName: dsp.name, kind: dsp.protocol, bidId, priceMicros, creative, dsp };
      if (creative === null) cache.put(bid);
      valid.push(bid);
    } catch (err) {
      if (!(err instanceof BidRejection)) throw err;
      const price = typeof answer.bid.price === 'number' && Number.isFinite(answer.bid.price) ? Math.round(answer.bid.price * 1e6) : null;
      records.push({ ...base, bidId, priceMicros: price, outcome: 'rejected', reason: err.reason, detail: err.message });
    }
  }
  return { valid, records };
}
