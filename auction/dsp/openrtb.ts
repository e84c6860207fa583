import { CONTENT_TAXONOMY_CATTAX } from '../../domain/safety';
import { isIP } from 'node:net';
import type { DspConfig } from '../../domain/dsps';
import { ALPHA3 } from '../../domain/countries-iso3';
import { contextualIp, dspAccess } from '../../domain/privacy';
import { auctionSettings } from '../settings';
import { headlineLimit } from '../request-schema';
import type { AuctionContext } from '../types';
import { headerLanguage } from '../../domain/understanding/signals/language';

/**
 * OpenRTB 2.6 BidRequest with a Native 1.2 request, field by field as spec 3's
 * tables say ("OpenRTB 2.6 bid request").
 */
export type TagId = 'sponsored_message_image_v1' | 'sponsored_message_text_v1' | 'opener_image_v1' | 'opener_text_v1';

export const IMAGE_MIMES = ['image/jpeg', 'image/png', 'image/webp'];
export const ASSET_LIMITS = { description: 200, sponsoredBy: 50, cta: 15, imageMin: 400, logoMin: 100 } as const;

/** Format and render mode: openers get opener_*, images off (config.image_enabled false) get the _text_v1 slot. */
export function tagIdFor(ctx: AuctionContext): TagId {
  const prefix = ctx.request.request_type === 'opener' ? 'opener' : 'sponsored_message';
  return `${prefix}_${ctx.request.config.image_enabled ? 'image' : 'text'}_v1` as TagId;
}

export const isTextSlot = (tagid: string) => tagid.endsWith('_text_v1');

export function nativeRequest(tagid: TagId, titleLen: number) {
  const text = isTextSlot(tagid);
  const img = (id: number, type: number, min: number, required: 0 | 1) => ({ id, required, img: { type, wmin: min, hmin: min, mimes: IMAGE_MIMES } });
  return {
    ver: '1.2',
    context: 1,
    contextsubtype: 10,
    plcmttype: 4,
    plcmtcnt: 1,
    eventtrackers: [{ event: 1, methods: [1] }],
    privacy: 1,
    assets: [
      { id: 1, required: 1, title: { len: titleLen } },
      { id: 2, required: 1, data: { type: 2, len: ASSET_LIMITS.description } },
      { id: 3, required: 1, data: { type: 1, len: ASSET_LIMITS.sponsoredBy } },
      ...(text ? [] : [img(4, 3, ASSET_LIMITS.imageMin, 0)]),
      img(5, 1, ASSET_LIMITS.logoMin, text ? 1 : 0),
      { id: 6, required: 1, data: { type: 12, len: ASSET_LIMITS.cta } },
    ],
  };
}

const DEVICE_TYPE = { desktop: 2, mobile: 4, tablet: 5 } as const;

const lower = (s: string | undefined | null) => (s ? s.toLowerCase() : undefined);
const compact = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

/**
 * device.language: the chat host's own `language`, else the conversation's
 * (auction/signals.ts: detected from it, else the Accept-Language header's
 * primary tag); omitted when none.
 */
function language(ctx: AuctionContext): string | undefined {
  if (ctx.request.language) return ctx.request.language;
  return ctx.signals?.language ?? headerLanguage(ctx.headerLanguage);
}

export function buildBidRequest(ctx: AuctionContext, dsp: Pick<DspConfig, 'siteIdOverride' | 'publisherIdOverride' | 'tcfVendorId' | 'bidsWithoutConsent'>) {
  const req = ctx.request;
  // What this DSP may be told of the user (domain/privacy): contextual only is no user id and the IP cut to what geolocation needs.
  const personalized = dspAccess(ctx.privacy, dsp) === 'personalized';
  const ip = personalized ? ctx.userIp : contextualIp(ctx.userIp);
  const tagid = tagIdFor(ctx);
  const inventory = req.app ?? req.site;
  const publisher = compact({
    // Priority rule: per-DSP override, else the publisher organization's public id, else its internal id.
    id: dsp.publisherIdOverride ?? ctx.publisher.publicId ?? ctx.publisher.id,
    name: lower(inventory?.publisher?.name ?? ctx.publisher.name),
    domain: lower(inventory?.publisher?.domain ?? ctx.publisher.domain),
  });
  const shared = compact({
    // Priority rule: per-DSP override, else the chatbot's public id, else our internal publisher id.
    id: dsp.siteIdOverride ?? inventory?.id ?? ctx.publisher.id,
    privacypolicy: 1,
    publisher,
    ...contentCategories(inventory?.cat, [...(ctx.signals?.categories ?? []), ...(ctx.safety?.siteCat ?? [])]),
    // The host's own search and keywords are kept; ours fill the search when it sends none and follow its keywords.
    search: inventory?.search ?? (ctx.signals?.search || undefined),
    keywords: keywordList(inventory?.keywords, ctx.signals?.keywords),
  });
  const placement = req.app
    ? { app: compact({ ...shared, bundle: req.app.bundle, storeurl: req.app.storeurl, domain: req.app.domain }) }
    : { site: compact({ ...shared, domain: req.site?.domain, page: req.site?.page }) };
  const ipv6 = isIP(ip) === 6;
  return compact({
    id: ctx.auctionId,
    at: 1,
    tmax: 2000,
    cur: ['USD'],
    test: ctx.publisher.test ? 1 : auctionSettings.openrtbTest,
    imp: [
      {
        id: '1',
        tagid,
        bidfloor: ctx.floorMicros / 1_000_000,
        bidfloorcur: 'USD',
        secure: 1,
        native: { ver: '1.2', request: JSON.stringify(nativeRequest(tagid, headlineLimit(req, 'openrtb'))) },
        ext: {
          own: compact({
            chat_id: req.request_type === 'opener' ? undefined : req.chatId,
            n_ads_before: req.nAdsBefore ?? 0,
            prefetched: req.prefetched,
            request_type: req.request_type === 'opener' ? 'opener' : 'sponsored_message',
          }),
        },
      },
    ],
    ...placement,
    device: compact({
      ua: ctx.userAgent,
      ip: ipv6 ? undefined : ip,
      ipv6: ipv6 ? ip : undefined,
      devicetype: DEVICE_TYPE[req.device] ?? 0,
      js: 1,
      language: language(ctx),
      geo: compact({ country: ALPHA3.get(req.country_code), region: req.region, city: req.city, type: 2 }),
    }),
    user: userOf(req, personalized),
    regs: regsOf(ctx),
    source: {
      fd: 0,
      tid: ctx.auctionId,
      schain: { complete: 1, ver: '1.0', nodes: [{ asi: auctionSettings.schainAsi, sid: ctx.publisher.publicId, hp: 1, rid: ctx.auctionId }] },
    },
    bcat: union(ctx.blocks.categories, []),
    badv: union([...ctx.blocks.advertisers], []),
  });
}

/**
 * OpenRTB 2.6 user: the id only in a personalized request; the host's TC string as `consent`
 * (and as `ext.consent`, spec 3's table, for 2.5 readers). Absent when there is neither.
 */
function userOf(req: AuctionContext['request'], personalized: boolean) {
  const consent = req.user?.consent;
  if (!personalized && consent === undefined) return undefined;
  return compact({ id: personalized ? req.userId : undefined, consent, ext: consent === undefined ? undefined : { consent } });
}

/** OpenRTB 2.6 regs: `gdpr` as decided (domain/privacy), and the host's GPP, US Privacy and COPPA signals as it sent them. */
function regsOf(ctx: AuctionContext) {
  const regs = ctx.request.regs;
  const gdpr = ctx.privacy.gdpr;
  if (!regs) return { gdpr };
  return compact({ gdpr, gpp: regs.gpp, gpp_sid: regs.gpp_sid, us_privacy: regs.us_privacy, coppa: regs.coppa });
}

/** Both lists without repeats, or undefined when both are empty (the spec: only when set). */
function union(a: readonly string[] | undefined, b: Iterable<string>): string[] | undefined {
  const all = [...new Set([...(a ?? []), ...b])];
  return all.length ? all : undefined;
}

/** site.keywords / app.keywords: the host's comma-separated keywords, then ours that it does not already have; undefined when none. */
function keywordList(own: string | undefined, detected: readonly string[] | undefined): string | undefined {
  const seen = new Set(
    (own ?? '')
      .split(',')
      .map((k) => k.trim().toLowerCase())
      .filter(Boolean),
  );
  const added: string[] = [];
  for (const k of detected ?? []) {
    if (seen.has(k.toLowerCase())) continue;
    seen.add(k.toLowerCase());
    added.push(k);
  }
  if (!added.length) return own || undefined;
  return own?.trim() ? `${own},${added.join(',')}` : added.join(',');
}

/**
 * site.cat / app.cat (Content Taxonomy 3.0, cattax 7): the host's own
 * categories, then what the conversation is about (auction/signals.ts: tier-1
 * ids, then confident tier-2) and the sensitive categories the safety screen found.
 */
function contentCategories(own: readonly string[] | undefined, detected: readonly string[] | undefined) {
  const cat = union(own, detected ?? []);
  return cat ? { cat, cattax: CONTENT_TAXONOMY_CATTAX } : {};
}

export type BidRequest = ReturnType<typeof buildBidRequest>;

/** Headers and URL: `x-openrtb-version` 2.6, JSON both ways; bearer key, or the credential baked into the URL. */
export function openrtbHeaders(dsp: Pick<DspConfig, 'authStyle' | 'apiKey'>): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json', 'x-openrtb-version': '2.6' };
  if (dsp.authStyle === 'bearer' && dsp.apiKey) headers.authorization = `Bearer ${dsp.apiKey}`;
  return headers;
}
