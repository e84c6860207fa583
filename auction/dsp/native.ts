import type { DspConfig } from '../../domain/dsps';
import { contextualIp, conversationScopedUserId } from '../../domain/privacy';
import { bidIdOf } from './dsp-content';
import { BidRejection } from '../non-bid';
import { headlineLimit } from '../request-schema';
import type { AuctionContext } from '../types';

/**
 * The native JSON protocol (spec 3): bid request body and headers, the bid
 * response's envelope, and the render request.
 */
// A loop rather than Object.entries/fromEntries: no array per field on the hot path; same keys, same order.
const compact = <T extends object>(o: T): T => {
  const out: Record<string, unknown> = {};
  for (const key in o) if (o[key] !== undefined) out[key] = o[key];
  return out as T;
};

/** The formats a DSP can be offered (poll is our in-house format only). */
export const dspFormats = (ctx: AuctionContext) => ctx.request.ad_formats.filter((f): f is 'sponsored_message' | 'sponsored_carousel' => f !== 'poll');

/**
 * The spec's body. `personalized` false (the user's consent: domain/privacy): the spec requires a
 * `userId`, so a contextual-only request carries one scoped to the conversation, never the host's.
 */
export function nativeBidBody(ctx: AuctionContext, personalized = true) {
  const req = ctx.request;
  const opener = req.request_type === 'opener';
  return compact({
    userId: personalized ? req.userId : conversationScopedUserId(ctx.publisher.publicId, req.chatId, ctx.auctionId),
    request_type: req.request_type,
    chatId: opener ? undefined : req.chatId,
    nAdsBefore: opener ? undefined : req.nAdsBefore,
    // The conversation's window, not the request's whole history (auction/conversation-window.ts).
    messages: opener ? undefined : ctx.window,
    ad_formats: dspFormats(ctx),
    prefetched: req.prefetched,
    request_id: req.request_id ?? ctx.auctionId,
    country_code: req.country_code,
    region: req.region,
    city: req.city,
    device: req.device,
    timezone: req.timezone,
    config: { max_headline_chars: headlineLimit(req, 'native'), image_enabled: req.config.image_enabled },
  });
}

/** Exactly the spec's headers: bearer key, JSON, X-Forwarded-For with the user's IP first (contextual only: cut to its /24 or /48), the user's User-Agent. */
export function nativeBidHeaders(ctx: AuctionContext, dsp: Pick<DspConfig, 'apiKey'>, personalized = true): Record<string, string> {
  return {
    authorization: `Bearer ${dsp.apiKey ?? ''}`,
    'content-type': 'application/json',
    'x-forwarded-for': personalized ? ctx.userIp : contextualIp(ctx.userIp),
    'user-agent': ctx.userAgent,
  };
}

export type ParsedNativeBid = { kind: 'no_bid'; detail: string } | { kind: 'bid'; bidId: string; price: unknown; adData: unknown };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `{ data: { bid, bidId, ad_data? } }`; `data: {}` is a no-bid; other top-level fields are ignored. */
export function parseNativeBid(body: unknown): ParsedNativeBid {
  if (!isObject(body) || !isObject(body.data)) throw new BidRejection('invalid_response', 'response must be { data: { ... } }');
  const data = body.data;
  if (Object.keys(data).length === 0) return { kind: 'no_bid', detail: 'data is empty' };
  if (data.bid === undefined) throw new BidRejection('invalid_response', 'data.bid is required for a bid');
  return { kind: 'bid', bidId: bidIdOf(data.bidId, 'data.bidId'), price: data.bid, adData: data.ad_data };
}

/** `production` false for a sandbox publisher's auction: the DSP must not bill or count the win. */
export function renderBody(bidId: string, priceMicros: number, production: boolean) {
  return JSON.stringify({ bidId, realizedPrice: priceMicros / 1_000_000, production });
}
