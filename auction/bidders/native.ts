import type { DspConfig } from '../../domain/dsps';
import { dspAccess } from '../../domain/privacy';
import { CallFailure, parseJson, postJson, type Deadline } from '../dsp/http';
import { dspFormats, nativeBidBody, nativeBidHeaders, parseNativeBid, renderBody, type ParsedNativeBid } from '../dsp/native';
import { bidPriceMicros, validateNativeCreative } from '../dsp/native-creative';
import { BidRejection } from '../non-bid';
import { headlineLimit } from '../request-schema';
import type { AuctionContext, Creative, ValidBid } from '../types';
import type { Bidder, BidderAnswer } from './bidder';
import { namedPriceMicros, planDspCall } from './dsp-planning';

type NativeBid = Extract<ParsedNativeBid, { kind: 'bid' }>;

/** The native bid body is the same for every native DSP of an auction told as much of the user (domain/privacy): serialized once each. */
const bodies = new WeakMap<AuctionContext, string>();
const contextualBodies = new WeakMap<AuctionContext, string>();
function bodyOf(ctx: AuctionContext, personalized: boolean): string {
  const cache = personalized ? bodies : contextualBodies;
  let body = cache.get(ctx);
  if (body === undefined) cache.set(ctx, (body = JSON.stringify(nativeBidBody(ctx, personalized))));
  return body;
}

const creativeRules = (ctx: AuctionContext) => ({
  offered: ctx.request.ad_formats,
  maxHeadlineChars: headlineLimit(ctx.request, 'native'),
  imageEnabled: ctx.request.config.image_enabled,
});

/**
 * A native JSON DSP (spec 3): POST its bid URL with the spec's body and
 * headers; `ad_data` is validated strictly, or, when absent, the winning bid is
 * rendered by POSTing its render URL with the realized price (first price).
 */
export function nativeBidder(dsp: DspConfig, renderReserveMs: number): Bidder<NativeBid> {
  return {
    id: dsp.id,
    name: dsp.name,
    kind: 'native',
    plan: (ctx, limits) => planDspCall(ctx, dsp, limits, dspFormats(ctx).length > 0, renderReserveMs),

    async call(ctx: AuctionContext, deadline: Deadline | null): Promise<BidderAnswer<NativeBid>> {
      const personalized = dspAccess(ctx.privacy, dsp) === 'personalized';
      const answer = await postJson(dsp.bidUrl, nativeBidHeaders(ctx, dsp, personalized), bodyOf(ctx, personalized), deadline!);
      if (answer.status === 204) return { status: 'no_bid', detail: 'HTTP 204' };
      if (answer.status !== 200) return { status: 'failed', reason: 'dsp_http_error', detail: `HTTP ${answer.status}` };
      const parsed = parseNativeBid(parseJson(answer));
      return parsed.kind === 'no_bid' ? { status: 'no_bid', detail: parsed.detail } : { status: 'bid', raw: parsed };
    },

    validate(ctx: AuctionContext, bid: NativeBid): ValidBid {
      const priceMicros = bidPriceMicros(bid.price);
      const creative = bid.adData === undefined || bid.adData === null ? null : validateNativeCreative(bid.adData, creativeRules(ctx));
      return { bidderId: dsp.id, bidderName: dsp.name, kind: 'native', bidId: bid.bidId, priceMicros, creative };
    },

    named: (bid) => ({ bidId: bid.bidId, priceMicros: namedPriceMicros(bid.price) }),

    async render(ctx: AuctionContext, bid: ValidBid, timeoutMs: number): Promise<Creative> {
      if (!dsp.renderUrl) throw new CallFailure('render_failed', 'the DSP has no render_url', 0);
      const answer = await postJson(
        dsp.renderUrl,
        { 'content-type': 'application/json' },
        renderBody(bid.bidId, bid.priceMicros, !ctx.publisher.test),
        timeoutMs,
      );
      if (answer.status !== 200) throw new CallFailure('render_failed', `render HTTP ${answer.status}`, answer.latencyMs);
      let body: unknown;
      try {
        body = parseJson(answer);
      } catch {
        throw new CallFailure('render_failed', 'render body is not JSON', answer.latencyMs);
      }
      if (typeof body !== 'object' || body === null || !('data' in body))
        throw new BidRejection('invalid_ad_data', 'render response must be { data: <creative> }');
      return validateNativeCreative(body.data, creativeRules(ctx));
    },
  };
}
