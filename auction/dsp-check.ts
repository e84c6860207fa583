import { randomUUID } from 'node:crypto';
import { conversationWindow } from './conversation-window';
import type { DspConfig } from '../domain/dsps';
import { newAuctionId } from '../domain/ids';
import { publisherWithDefaults } from '../domain/publishers';
import { privacyDecision } from '../domain/privacy';
import { BidCache } from './bid-cache';
import { dspAgent } from './dsp/http';
import { adRequestSchema } from './request-schema';
import { auctionSettings } from './settings';
import { dspBidder } from './bidders';
import { callBidders } from './stages/3-call-bidders';
import { validateBids } from './stages/4-validate-bids';
import { renderWinner } from './stages/6-render';
import type { AuctionContext } from './types';
import { loadSignals, signalsOf } from './signals';
import { buildBidRequest } from './dsp/openrtb';

/**
 * `adctl dsp check URL --protocol native|openrtb [--key K] [--render-url U]`:
 * sends contract-conformant requests (both request types, both render modes,
 * every tagid; carousels for native) through the auction's own bidder and
 * stages 3, 4 and 6, and reports point by point where the answers break the spec, with
 * the spec's reason names. A clean no-bid passes (reason `no_bid` shown).
 * `signals`: what the requests told the DSP the check's conversation is about
 * (site.search, keywords, cat/cattax, device.language: docs/signals.md).
 */
export interface CheckResult {
  name: string;
  ok: boolean;
  reason: string | null;
  detail: string | null;
}

const TIMEOUT_MS = 2000;

function context(variant: { opener: boolean; imageEnabled: boolean; formats: string[] }): AuctionContext {
  const ctx = baseContext(variant);
  ctx.signals = signalsOf(ctx);
  return ctx;
}

function baseContext(variant: { opener: boolean; imageEnabled: boolean; formats: string[] }): AuctionContext {
  const request = adRequestSchema.parse({
    userId: 'dsp-check-user',
    request_type: variant.opener ? 'opener' : 'contextual',
    ...(variant.opener
      ? {}
      : {
          chatId: `check-${randomUUID()}`,
          nAdsBefore: 0,
          messages: [
            { role: 'user', content: 'Which running shoes for a first marathon?' },
            { role: 'assistant', content: 'Cushioned trainers help for long distances.' },
          ],
        }),
    ad_formats: variant.formats,
    country_code: 'US',
    device: 'mobile',
    timezone: 'America/New_York',
    language: 'en',
    config: { image_enabled: variant.imageEnabled },
  });
  const now = performance.now();
  return {
    auctionId: newAuctionId(),
    startedAt: now,
    deadlineAt: now + TIMEOUT_MS + 1000,
    tmaxMs: 2000,
    request,
    window: conversationWindow(request.messages),
    publisher: publisherWithDefaults({ id: randomUUID(), publicId: randomUUID(), name: 'adctl dsp check', domain: 'check.example' }),
    // A US request without privacy signals: the personalized request.
    privacy: privacyDecision(request, request.country_code, { teenContextualAds: false }),
    userIp: '203.0.113.7',
    userAgent: 'Mozilla/5.0 (adctl dsp check)',
    floorMicros: 0,
    blocks: { advertisers: new Set(), categories: [] },
    audience: undefined,
  };
}

export async function checkDsp(opts: { bidUrl: string; protocol: 'native' | 'openrtb'; key?: string; renderUrl?: string }) {
  const dsp: DspConfig = {
    id: 'dsp-check',
    name: 'dsp-check',
    protocol: opts.protocol,
    bidUrl: opts.bidUrl,
    renderUrl: opts.renderUrl ?? (opts.protocol === 'native' ? opts.bidUrl.replace(/\/bid(\?|$)/, '/render$1') : null),
    apiKey: opts.key ?? null,
    authStyle: opts.key || opts.protocol === 'native' ? 'bearer' : 'url',
    siteIdOverride: null,
    publisherIdOverride: null,
    tcfVendorId: null,
    bidsWithoutConsent: true,
  };
  const variants =
    opts.protocol === 'native'
      ? [
          { name: 'native contextual image', opener: false, imageEnabled: true, formats: ['sponsored_message'] },
          { name: 'native contextual text (image_enabled false)', opener: false, imageEnabled: false, formats: ['sponsored_message'] },
          { name: 'native opener image', opener: true, imageEnabled: true, formats: ['sponsored_message'] },
          { name: 'native opener text (image_enabled false)', opener: true, imageEnabled: false, formats: ['sponsored_message'] },
          { name: 'native carousel offered', opener: false, imageEnabled: true, formats: ['sponsored_message', 'sponsored_carousel'] },
        ]
      : [
          { name: 'openrtb sponsored_message_image_v1', opener: false, imageEnabled: true, formats: ['sponsored_message'] },
          { name: 'openrtb sponsored_message_text_v1', opener: false, imageEnabled: false, formats: ['sponsored_message'] },
          { name: 'openrtb opener_image_v1', opener: true, imageEnabled: true, formats: ['sponsored_message'] },
          { name: 'openrtb opener_text_v1', opener: true, imageEnabled: false, formats: ['sponsored_message'] },
        ];
  await loadSignals();
  const bidder = dspBidder(dsp, auctionSettings);
  const cache = new BidCache(auctionSettings.bidCacheTtlMs);
  const checks: CheckResult[] = [];
  try {
    for (const v of variants) {
      const ctx = context(v);
      const answers = await callBidders(ctx, [{ bidder, timeoutMs: TIMEOUT_MS }], 1);
      const { valid, records } = validateBids(ctx, answers, cache);
      const rejected = records[0];
      if (rejected) {
        const ok = rejected.reason === 'no_bid';
        checks.push({ name: `${v.name}: bid`, ok, reason: rejected.reason, detail: rejected.detail });
        continue;
      }
      checks.push({
        name: `${v.name}: bid`,
        ok: true,
        reason: null,
        detail: `bid ${valid[0].priceMicros / 1e6} USD${valid[0].creative ? ' with ad_data' : ', render needed'}`,
      });
      if (!valid[0].creative) {
        const rendered = await renderWinner(ctx, valid, () => bidder, cache, { ...auctionSettings, ownWorkReserveMs: 0 });
        const failure = rendered.failed[0];
        checks.push({
          name: `${v.name}: render`,
          ok: !failure,
          reason: failure?.reason ?? null,
          detail: failure?.detail ?? `rendered ${rendered.winner?.creative.format}`,
        });
      }
    }
  } finally {
    cache.close();
    await dspAgent.close();
  }
  return { ok: checks.every((c) => c.ok), checks, signals: sentSignals(dsp) };
}

/** What the contextual requests told the DSP the conversation is about (auction/signals.ts; the native request carries the messages instead). */
function sentSignals(dsp: DspConfig) {
  const ctx = context({ opener: false, imageEnabled: true, formats: ['sponsored_message'] });
  if (dsp.protocol === 'native') return { ...ctx.signals, note: 'native requests carry the conversation itself' };
  const { site, device } = buildBidRequest(ctx, dsp);
  return { search: site?.search, keywords: site?.keywords, cat: site?.cat, cattax: site?.cattax, language: device.language };
}
