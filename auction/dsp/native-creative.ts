import { BidRejection } from '../non-bid';
import { codePoints, creativeDomain, creativeText, creativeUrl, DSP_LIMITS } from './dsp-content';
import type { AdFormat } from '../request-schema';
import type { CarouselCreative, CarouselTile, MessageCreative } from '../types';

/**
 * Strict validation of a native creative payload (`ad_data` in a bid, `data` in
 * a render response), spec 3 "Creative payload": unknown fields, wrong types and
 * missing required fields are `invalid_ad_data`; the placement contract has its
 * own reasons; carousel rules are `invalid_carousel`. Texts and URLs are
 * checked and normalized as they will be served (dsp-content.ts): URLs https only.
 */
export interface CreativeRules {
  offered: readonly AdFormat[];
  maxHeadlineChars: number;
  imageEnabled: boolean;
}

const MESSAGE_FIELDS = new Set([
  'ad_format',
  'placement',
  'headline',
  'description',
  'url',
  'advertiser',
  'domain',
  'cta_text',
  'image_url',
  'logo_url',
  'view_url',
  'feedback_url',
]);
const CAROUSEL_FIELDS = new Set(['ad_format', 'items', 'advertiser', 'domain', 'logo_url', 'view_url', 'feedback_url']);
const TILE_FIELDS = new Set(['headline', 'description', 'image_url', 'url', 'advertiser']);

const reject = (reason: ConstructorParameters<typeof BidRejection>[0], detail: string): never => {
  throw new BidRejection(reason, detail);
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function onlyKnownFields(obj: Record<string, unknown>, allowed: Set<string>, where: string) {
  for (const key of Object.keys(obj)) if (!allowed.has(key)) reject('invalid_ad_data', `${where}: unknown field "${key}"`);
}

/** The per-field caps of a native creative's texts (the OpenRTB asset lengths; the headline's is the request's). */
const TEXT_LIMITS: Record<string, number> = { description: DSP_LIMITS.description, advertiser: DSP_LIMITS.advertiser, cta_text: DSP_LIMITS.ctaText };

/** A string field: required ones must be non-empty strings, optional ones absent/null or strings; a capped text is checked as served. */
function text(obj: Record<string, unknown>, key: string, where: string, required: boolean, max = TEXT_LIMITS[key]): string | undefined {
  const value = obj[key];
  if (value === undefined || value === null) {
    if (required) reject('invalid_ad_data', `${where}: "${key}" is required`);
    return undefined;
  }
  if (typeof value !== 'string') return reject('invalid_ad_data', `${where}: "${key}" must be a string`);
  if (required && value.trim() === '') reject('invalid_ad_data', `${where}: "${key}" must not be empty`);
  return max === undefined ? value : creativeText(value, `${where}: ${key}`, max, key === 'description');
}

function url(obj: Record<string, unknown>, key: string, where: string, required: boolean): string | undefined {
  const value = text(obj, key, where, required);
  return value === undefined ? undefined : creativeUrl(value, `${where}: "${key}"`);
}

function domain(obj: Record<string, unknown>, where: string): string | undefined {
  const value = text(obj, 'domain', where, false, DSP_LIMITS.domain);
  return value === undefined ? undefined : creativeDomain(value, `${where}: domain`);
}

function headline(obj: Record<string, unknown>, where: string, max: number): string {
  const value = text(obj, 'headline', where, true)!;
  if (value.length > max && codePoints(value) > max) reject('asset_too_long', `${where}: headline is longer than max_headline_chars (${max})`);
  return creativeText(value, `${where}: headline`, max);
}

// A loop rather than Object.entries/fromEntries: no array per field on the hot path; same keys, same order.
const compact = <T extends object>(o: T): T => {
  const out: Record<string, unknown> = {};
  for (const key in o) if (o[key] !== undefined) out[key] = o[key];
  return out as T;
};

export function validateNativeCreative(raw: unknown, rules: CreativeRules): MessageCreative | CarouselCreative {
  if (!isObject(raw)) return reject('invalid_ad_data', 'creative must be a JSON object');
  const format = raw.ad_format ?? 'sponsored_message';
  if (format !== 'sponsored_message' && format !== 'sponsored_carousel') {
    return reject('invalid_ad_data', 'ad_format must be sponsored_message or sponsored_carousel');
  }
  if (!rules.offered.includes(format)) reject('format_not_offered', `ad_format ${format} was not offered in ad_formats`);
  return format === 'sponsored_message' ? message(raw, rules) : carousel(raw, rules);
}

function message(raw: Record<string, unknown>, rules: CreativeRules): MessageCreative {
  const where = 'sponsored_message';
  onlyKnownFields(raw, MESSAGE_FIELDS, where);
  const placement = raw.placement;
  if (placement === undefined || placement === null) reject('dsp_missing_placement', 'placement is required');
  if (placement !== 'image' && placement !== 'text') reject('invalid_ad_data', 'placement must be image or text');
  const creative: MessageCreative = compact({
    format: 'sponsored_message' as const,
    placement: placement as 'image' | 'text',
    headline: headline(raw, where, rules.maxHeadlineChars),
    description: text(raw, 'description', where, false),
    url: url(raw, 'url', where, true)!,
    advertiser: text(raw, 'advertiser', where, true)!,
    domain: domain(raw, where),
    cta_text: text(raw, 'cta_text', where, true)!,
    image_url: url(raw, 'image_url', where, false),
    logo_url: url(raw, 'logo_url', where, false),
    view_url: url(raw, 'view_url', where, false),
    feedback_url: url(raw, 'feedback_url', where, false),
  });
  if (creative.placement === 'image') {
    if (!creative.image_url) reject('dsp_invalid_image_bid', 'placement image needs image_url');
    if (!rules.imageEnabled) reject('dsp_invalid_image_bid', 'placement image bid while config.image_enabled is false');
  } else {
    if (!creative.logo_url) reject('dsp_invalid_text_bid', 'placement text needs logo_url');
    delete creative.image_url; // "ignored" for text placement
  }
  return creative;
}

function carousel(raw: Record<string, unknown>, rules: CreativeRules): CarouselCreative {
  const where = 'sponsored_carousel';
  onlyKnownFields(raw, CAROUSEL_FIELDS, where);
  if (!Array.isArray(raw.items)) return reject('invalid_ad_data', 'items must be an array');
  const advertiser = text(raw, 'advertiser', where, false);
  const tiles: CarouselTile[] = [];
  const brands = new Set<string>(advertiser ? [advertiser.trim().toLowerCase()] : []);
  raw.items.forEach((tile, i) => {
    const at = `items[${i}]`;
    if (!isObject(tile)) reject('invalid_ad_data', `${at} must be an object`);
    const t = tile as Record<string, unknown>;
    onlyKnownFields(t, TILE_FIELDS, at);
    const brand = text(t, 'advertiser', at, false);
    if (brand) brands.add(brand.trim().toLowerCase());
    const image = url(t, 'image_url', at, false);
    if (!image) reject('invalid_carousel', `${at}: every tile needs image_url`);
    tiles.push(
      compact({
        headline: headline(t, at, rules.maxHeadlineChars),
        description: text(t, 'description', at, false),
        image_url: image!,
        url: url(t, 'url', at, true)!,
      }),
    );
  });
  if (tiles.length !== 3) reject('invalid_carousel', `a carousel has exactly 3 tiles, got ${tiles.length}`);
  if (brands.size > 1) reject('invalid_carousel', 'all tiles must be one brand');
  if (new Set(tiles.map((t) => t.url)).size !== tiles.length) reject('invalid_carousel', 'tile urls must be unique');
  return compact({
    format: 'sponsored_carousel' as const,
    items: tiles,
    advertiser,
    domain: domain(raw, where),
    logo_url: url(raw, 'logo_url', where, false),
    view_url: url(raw, 'view_url', where, false),
    feedback_url: url(raw, 'feedback_url', where, false),
  });
}

/** The spec's price rule: a number >= 0, rounded to two decimals with banker's rounding; returned in micros. */
export function bidPriceMicros(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) reject('invalid_response', 'bid must be a number');
  if ((value as number) < 0) reject('invalid_response', 'bid must be >= 0');
  return bankersRoundCents(value as number) * 10_000;
}

/** Dollars to whole cents, half to even (0.125 -> 12, 0.135 -> 14), robust to binary float noise. */
export function bankersRoundCents(dollars: number): number {
  const cents = dollars * 100;
  const floor = Math.floor(cents);
  const diff = cents - floor;
  const EPS = 1e-9;
  if (Math.abs(diff - 0.5) < EPS) return floor % 2 === 0 ? floor : floor + 1;
  return Math.round(cents);
}
