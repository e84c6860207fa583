import { z } from 'zod';
import { compiledSchema } from '../../lib/validation';
import { LRUCache } from 'lru-cache';
import { compactCodec, type FieldType } from '../../lib/compact-record';
import { inspectBoundToken, inspectToken, signBoundToken } from '../../lib/signed-token';
import { isUuid } from '../ids';

/**
 * The signed tokens of the URLs the auction hands to chat hosts: minted by the
 * auction (auction/tracking.ts), read by the api's trackers
 * (api/tracking/delivery.ts). A token carries everything a tracker needs, so
 * no tracker ever looks an auction up. Fields: docs/architecture.md, "Tracking tokens".
 */
export const TRACKING_PATHS = {
  view: '/api/v1/tracking/view',
  click: '/api/v1/tracking/click',
  feedback: '/api/v1/tracking/feedback',
  poll_vote: '/api/v1/tracking/sponsored-polls/vote',
  poll_results: '/api/v1/tracking/sponsored-polls/results',
} as const;
export type TrackingKind = keyof typeof TRACKING_PATHS;
export type DeliveryTokenKind = 'view' | 'click' | 'feedback';

const micros = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
const text = (max: number) => z.string().max(max);
const id = z.string().refine(isUuid);

/** The claims every delivery token carries; `kind` names the tracker it is for. */
export const deliveryClaimsSchema = z.object({
  kind: z.enum(['view', 'click', 'feedback']),
  auction_id: text(64).min(1),
  publisher_id: text(64),
  /** The clearing price as a CPM, micros (first price: the winning bid). */
  price_micros: micros,
  source: z.enum(['inhouse', 'dsp']),
  // in-house wins
  ad_id: id.optional(),
  ad_group_id: id.optional(),
  campaign_id: id.optional(),
  organization_id: id.optional(),
  ad_account_id: id.optional(),
  pricing_model: z.enum(['cpm', 'cpc']).optional(),
  /** cpc campaigns: what one click costs (the ad group's max CPC, first price). */
  cpc_micros: micros.optional(),
  // DSP wins
  dsp_id: text(64).optional(),
  bid_id: text(256).optional(),
  // the request's audience
  country: text(8).optional(),
  device: text(16).optional(),
  /** Hashed user and conversation (frequency caps: the impression counts toward them). */
  user_key: text(32).optional(),
  chat_key: text(32).optional(),
  /** A sandbox publisher's ad (auction/publisher/sandbox.ts): the trackers record nothing. */
  test: z.literal(true).optional(),
  // per kind
  dsp_view_url: text(2048).optional(),
  dsp_feedback_url: text(2048).optional(),
  url: text(4096).optional(),
  tile: z.number().int().nonnegative().optional(),
  /** The auction's user agent (a short hash) and user network: what its pixels and clicks must match (invalid-traffic.ts). */
  ua_hash: text(16).optional(),
  net: text(40).optional(),
});
export type DeliveryClaims = z.infer<typeof deliveryClaimsSchema>;

/**
 * The token's claims in their compact form (lib/compact-record.ts), `kind` and
 * the expiry aside: the token binds those itself. The order is the format:
 * new claims go at the end, none is ever removed or moved.
 */
const claimsCodec = compactCodec({
  auction_id: 'text',
  publisher_id: 'text',
  price_micros: 'uint',
  source: 'text',
  ad_id: 'text',
  ad_group_id: 'text',
  campaign_id: 'text',
  organization_id: 'text',
  ad_account_id: 'text',
  pricing_model: 'text',
  cpc_micros: 'uint',
  dsp_id: 'text',
  bid_id: 'text',
  country: 'text',
  device: 'text',
  user_key: 'text',
  chat_key: 'text',
  test: 'flag',
  dsp_view_url: 'text',
  dsp_feedback_url: 'text',
  url: 'text',
  tile: 'uint',
  ua_hash: 'text',
  net: 'text',
} satisfies Record<Exclude<keyof DeliveryClaims, 'kind'>, FieldType>);

/** A token's own claims, beside those every token of a delivery shares. */
export type OwnClaims = Pick<DeliveryClaims, 'dsp_view_url' | 'dsp_feedback_url' | 'url' | 'tile'>;

/**
 * The tokens of one delivery (its view, click and feedback URLs): a bound
 * token (lib/signed-token.ts) of purpose `kind` whose body is the shared
 * claims, encoded once for all of them, a dot, and the token's own claims.
 */
export function deliveryTokenSigner(shared: Omit<DeliveryClaims, 'kind'>): (kind: DeliveryTokenKind, own: OwnClaims | null, ttlSeconds: number) => string {
  const head = `${claimsCodec.encode(shared)}.`;
  return (kind, own, ttlSeconds) => signBoundToken(kind, own ? head + claimsCodec.encode(own) : head, ttlSeconds);
}

export function signDeliveryToken(claims: DeliveryClaims, ttlSeconds: number): string {
  const { kind, dsp_view_url, dsp_feedback_url, url, tile, ...shared } = claims;
  return deliveryTokenSigner(shared)(kind, { dsp_view_url, dsp_feedback_url, url, tile }, ttlSeconds);
}

/** The compact form, or the JSON form minted before it (api_tracking_tokens_total tells when that is gone). */
export type TokenForm = 'compact' | 'json';
export interface DeliveryToken {
  claims: DeliveryClaims;
  expired: boolean;
  form: TokenForm;
}

/**
 * A genuine token of `kind` and whether it has expired, or null (malformed,
 * tampered, another kind, a foreign key): trackers count nothing for those.
 * A token of the JSON form the auction minted before the compact one
 * (`<kid>.<base64url JSON with kind and exp>.<signature>`) still reads, for
 * as long as such a token lives (the click TTL, 7 days).
 */
export function readDeliveryToken(token: unknown, kind: DeliveryTokenKind): DeliveryToken | null {
  const bound = inspectBoundToken(token, kind);
  if (!bound) return readJsonDeliveryToken(token, kind);
  const dot = bound.body.indexOf('.');
  // Both parts' claims decoded into one object: the schema reads an object spread together at half the speed.
  const shared = dot < 0 ? null : claimsCodec.decode(bound.body.slice(0, dot), { kind });
  const claims = shared && claimsCodec.decode(bound.body.slice(dot + 1), shared);
  if (!claims) return null;
  const parsed = compiledSchema(deliveryClaimsSchema).safeParse(claims);
  return parsed.success ? { claims: parsed.data, expired: bound.expired, form: 'compact' } : null;
}

function readJsonDeliveryToken(token: unknown, kind: DeliveryTokenKind): DeliveryToken | null {
  const genuine = inspectToken(token);
  if (!genuine) return null;
  const parsed = deliveryClaimsSchema.safeParse(genuine.payload);
  if (!parsed.success || parsed.data.kind !== kind) return null;
  return { claims: parsed.data, expired: genuine.expired, form: 'json' };
}

/** The spec: the SSP appends `view_url` as a query parameter to the DSP's click URL. */
export function withViewUrl(clickUrl: string, viewUrl: string | undefined): string {
  if (!viewUrl) return clickUrl;
  const around = viewUrlSlots.get(clickUrl) ?? viewUrlSlot(clickUrl);
  return around ? `${around[0]}${formEncoded(viewUrl)}${around[1]}` : appendViewUrl(clickUrl, viewUrl);
}

const appendViewUrl = (clickUrl: string, viewUrl: string) => {
  const url = new URL(clickUrl);
  url.searchParams.append('view_url', viewUrl);
  return url.toString();
};

/**
 * What comes before and after the appended value, per click URL (a DSP's few,
 * parsed once): the parser's normalization and the re-serialized query depend
 * only on the click URL, so the result is the parts around the value's encoding.
 */
const SLOT = 'viewurlslot0';
const viewUrlSlots = new LRUCache<string, readonly [string, string]>({ max: 10_000 });
function viewUrlSlot(clickUrl: string): readonly [string, string] | null {
  const marked = appendViewUrl(clickUrl, SLOT);
  const at = marked.indexOf(SLOT);
  const around = at >= 0 && marked.indexOf(SLOT, at + 1) < 0 ? ([marked.slice(0, at), marked.slice(at + SLOT.length)] as const) : null;
  if (around) viewUrlSlots.set(clickUrl, around);
  return around;
}

/** application/x-www-form-urlencoded, as URLSearchParams writes a value: encodeURIComponent also escapes !'()~, and a space is '+'. */
const FORM_EXTRA = /[!'()~]|%20/g;
const formEncoded = (value: string) =>
  encodeURIComponent(value.toWellFormed()).replace(FORM_EXTRA, (c) => (c === '%20' ? '+' : `%${c.charCodeAt(0).toString(16).toUpperCase()}`));

/**
 * The click id our click redirect hands the advertiser's landing page: the
 * `ad_click_id` query parameter, whose value (the auction id) sent back as an
 * event's `click_id` attributes the conversion to the click
 * (domain/events/conversions.ts). Appended to what is there, query and fragment kept.
 */
export const CLICK_ID_PARAM = 'ad_click_id';

export function withClickId(landingUrl: string, auctionId: string): string {
  const hash = landingUrl.indexOf('#');
  const [base, fragment] = hash < 0 ? [landingUrl, ''] : [landingUrl.slice(0, hash), landingUrl.slice(hash)];
  const separator = !base.includes('?') ? '?' : base.endsWith('?') || base.endsWith('&') ? '' : '&';
  return `${base}${separator}${CLICK_ID_PARAM}=${encodeURIComponent(auctionId)}${fragment}`;
}
