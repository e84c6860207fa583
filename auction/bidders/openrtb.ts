import type { DspConfig } from '../../domain/dsps';
import { parseJson, postJson, type Deadline } from '../dsp/http';
import { dspFormats } from '../dsp/native';
import { bidPriceMicros } from '../dsp/native-creative';
import { buildBidRequest, openrtbHeaders, tagIdFor } from '../dsp/openrtb';
import { parseBidResponse, validateNativeAdm, type ParsedOpenRtb } from '../dsp/openrtb-response';
import { headlineLimit } from '../request-schema';
import type { AuctionContext, ValidBid } from '../types';
import type { Bidder, BidderAnswer } from './bidder';
import { namedPriceMicros, planDspCall } from './dsp-planning';

type OpenRtbBid = Extract<ParsedOpenRtb, { kind: 'bid' }>;

/**
 * An OpenRTB 2.6 DSP with Native 1.2 (spec 3): one imp per auction, the slot's
 * tagid by format and render mode; the Native response in `adm` is the
 * creative (no render step). It serves sponsored messages only.
 */
export function openrtbBidder(dsp: DspConfig): Bidder<OpenRtbBid> {
  return {
    id: dsp.id,
    name: dsp.name,
    kind: 'openrtb',
    plan: (ctx, limits) => planDspCall(ctx, dsp, limits, dspFormats(ctx).includes('sponsored_message'), 0),

    async call(ctx: AuctionContext, deadline: Deadline | null): Promise<BidderAnswer<OpenRtbBid>> {
      const answer = await postJson(dsp.bidUrl, openrtbHeaders(dsp), JSON.stringify(buildBidRequest(ctx, dsp)), deadline!);
      if (answer.status === 204) return { status: 'no_bid', detail: 'HTTP 204' };
      if (answer.status !== 200) return { status: 'failed', reason: 'dsp_http_error', detail: `HTTP ${answer.status}` };
      const parsed = parseBidResponse(answer.body.trim() === '' ? undefined : parseJson(answer), ctx.auctionId);
      return parsed.kind === 'no_bid' ? { status: 'no_bid', detail: parsed.detail } : { status: 'bid', raw: parsed };
    },

    validate(ctx: AuctionContext, bid: OpenRtbBid): ValidBid {
      const priceMicros = bidPriceMicros(bid.price);
      const creative = validateNativeAdm(bid.adm, tagIdFor(ctx), headlineLimit(ctx.request, 'openrtb'), bid.adomain);
      return { bidderId: dsp.id, bidderName: dsp.name, kind: 'openrtb', bidId: bid.bidId, priceMicros, creative, adomain: bid.adomain, cat: bid.cat };
    },

    named: (bid) => ({ bidId: bid.bidId, priceMicros: namedPriceMicros(bid.price) }),
  };
}
