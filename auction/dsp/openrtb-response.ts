import { BidRejection, type NonBidReason } from '../non-bid';
import type { MessageCreative } from '../types';
import { ASSET_LIMITS, isTextSlot } from './openrtb';
import { bidIdOf, creativeDomain, creativeText, creativeUrl } from './dsp-content';

/**
 * OpenRTB BidResponse parsing (spec 3 leaves the response "not shown": we accept
 * OpenRTB 2.6 as written) and Native 1.2 response validation.
 * No-bid forms: HTTP 204, an empty body, `{}`, no or empty `seatbid`, `nbr`.
 */
export type ParsedOpenRtb =
  { kind: 'no_bid'; detail: string } | { kind: 'bid'; bidId: string; price: unknown; adm: unknown; adomain?: string[]; cat?: string[] };

const reject = (reason: NonBidReason, detail: string): never => {
  throw new BidRejection(reason, detail);
};
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `body` is the parsed JSON (undefined for an empty body). Throws invalid_response for a malformed answer. */
export function parseBidResponse(body: unknown, auctionId: string): ParsedOpenRtb {
  if (body === undefined || (isObject(body) && Object.keys(body).length === 0)) return { kind: 'no_bid', detail: 'empty response' };
  if (!isObject(body)) return reject('invalid_response', 'BidResponse must be a JSON object');
  if (body.nbr !== undefined && (!Array.isArray(body.seatbid) || body.seatbid.length === 0))
    return { kind: 'no_bid', detail: `nbr ${JSON.stringify(body.nbr)}` };
  if (body.id !== auctionId) reject('invalid_response', 'BidResponse id does not echo the request id');
  if (body.cur !== undefined && body.cur !== 'USD') reject('invalid_response', 'BidResponse cur must be USD');
  if (body.seatbid === undefined || (Array.isArray(body.seatbid) && body.seatbid.length === 0)) return { kind: 'no_bid', detail: 'no seatbid' };
  if (!Array.isArray(body.seatbid)) return reject('invalid_response', 'seatbid must be an array');
  const bids = body.seatbid.flatMap((seat): unknown[] =>
    isObject(seat) && Array.isArray(seat.bid) ? (seat.bid as unknown[]) : reject('invalid_response', 'seatbid[].bid must be an array'),
  );
  if (bids.length === 0) return { kind: 'no_bid', detail: 'empty seatbid' };
  const ours = bids.filter((b) => isObject(b) && b.impid === '1') as Record<string, unknown>[];
  if (ours.length === 0) return reject('invalid_response', 'no bid for imp "1"');
  // One impression: the DSP's highest bid for it is its bid.
  const best = ours.reduce((a, b) => (Number(b.price) > Number(a.price) ? b : a));
  const bidId = bidIdOf(best.id, 'bid.id');
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((d): d is string => typeof d === 'string').slice(0, 100) : undefined);
  return { kind: 'bid', bidId, price: best.price, adm: best.adm, adomain: strings(best.adomain), cat: strings(best.cat) };
}

interface NativeAsset {
  id?: unknown;
  title?: { text?: unknown };
  data?: { value?: unknown };
  img?: { url?: unknown; w?: unknown; h?: unknown };
}

/** An https URL as served (dsp-content.ts creativeUrl: normalized, no user info). */
function httpsUrl(value: unknown, what: string): string {
  if (typeof value !== 'string' || value === '') return reject('invalid_ad_data', `${what} must be a URL string`);
  return creativeUrl(value, what);
}

function assetText(asset: NativeAsset | undefined, id: number, name: string, max: number, field: 'title' | 'data'): string {
  const value = field === 'title' ? asset?.title?.text : asset?.data?.value;
  if (asset === undefined || typeof value !== 'string' || value.trim() === '') return reject('missing_required_asset', `asset ${id} (${name}) is required`);
  return creativeText(value, `asset ${id} (${name})`, max, id === 2);
}

/** An image asset's URL, or null; checks HTTPS and, when w/h are given, the minimum size. */
function image(asset: NativeAsset | undefined, id: number, min: number): string | null {
  if (!asset?.img) return null;
  const url = httpsUrl(asset.img.url, `asset ${id} img.url`);
  const { w, h } = asset.img;
  if ((typeof w === 'number' && w < min) || (typeof h === 'number' && h < min)) reject('image_too_small', `asset ${id} image is smaller than ${min}x${min}`);
  return url;
}

/** Native 1.2 response (adm as a JSON string or object, bare or under `native`) -> our creative, by the slot's tagid rules. */
export function validateNativeAdm(adm: unknown, tagid: string, titleLen: number, adomain?: string[]): MessageCreative {
  let parsed: unknown = adm;
  if (typeof adm === 'string') {
    try {
      parsed = JSON.parse(adm);
    } catch {
      return reject('invalid_ad_data', 'adm is not JSON');
    }
  }
  if (!isObject(parsed)) return reject('invalid_ad_data', 'adm must hold a Native 1.2 response object');
  const native = isObject(parsed.native) ? parsed.native : parsed;
  if (!Array.isArray(native.assets)) return reject('invalid_ad_data', 'native.assets must be an array');
  const assets = new Map<number, NativeAsset>();
  for (const a of native.assets as NativeAsset[]) if (isObject(a) && typeof a.id === 'number') assets.set(a.id, a);
  const headline = assetText(assets.get(1), 1, 'title', titleLen, 'title');
  const description = assetText(assets.get(2), 2, 'description', ASSET_LIMITS.description, 'data');
  const advertiser = assetText(assets.get(3), 3, 'sponsored-by', ASSET_LIMITS.sponsoredBy, 'data');
  const cta = assetText(assets.get(6), 6, 'call to action', ASSET_LIMITS.cta, 'data');
  const link = isObject(native.link) ? native.link : reject('invalid_ad_data', 'native.link is required');
  const url = httpsUrl(link.url, 'link.url');
  let viewUrl: string | undefined;
  if (Array.isArray(native.eventtrackers)) {
    for (const t of native.eventtrackers) {
      if (isObject(t) && t.event === 1 && t.method === 1) {
        viewUrl ??= httpsUrl(t.url, 'eventtrackers[].url');
      }
    }
  }
  if (viewUrl === undefined && Array.isArray(native.imptrackers) && native.imptrackers.length > 0) viewUrl = httpsUrl(native.imptrackers[0], 'imptrackers[0]');
  const text = isTextSlot(tagid);
  // On a _text_v1 slot an image is dropped before anything else looks at it.
  const mainImage = text ? null : image(assets.get(4), 4, ASSET_LIMITS.imageMin);
  const logo = image(assets.get(5), 5, ASSET_LIMITS.logoMin);
  if (!mainImage && !logo)
    reject(
      text ? 'dsp_invalid_text_bid' : 'dsp_invalid_image_bid',
      text ? 'a _text_v1 slot needs a logo (asset 5)' : 'neither an image (asset 4) nor a logo (asset 5)',
    );
  const creative: MessageCreative = {
    format: 'sponsored_message',
    placement: mainImage ? 'image' : 'text',
    headline,
    description,
    url,
    advertiser,
    cta_text: cta,
    ...(mainImage ? { image_url: mainImage } : {}),
    ...(logo ? { logo_url: logo } : {}),
    ...(viewUrl ? { view_url: viewUrl } : {}),
    ...(adomain?.[0] ? { domain: creativeDomain(adomain[0], 'adomain[0]') } : {}),
  };
  return creative;
}
