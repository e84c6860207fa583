import { isIP } from 'node:net';
import { z } from 'zod';
import { COUNTRY_CODES } from '../domain/countries';
import { AGE_GROUPS } from '../domain/privacy';
import { US_PRIVACY } from '../domain/privacy/signals';
import { isTimeZone, MAX_TIME_ZONE_LENGTH } from '../lib/time-zones';

/**
 * POST /v1/ad_requests: the spec's native bid request fields (3-dsp-integration,
 * "Native bid request") plus DESIGN's chat-host extras (ip, user_agent,
 * language, site|app, tmax, and `poll` in ad_formats). One schema: the route
 * validates with it and the OpenAPI document is generated from it.
 */

const nonEmpty = (max = 1000) => z.string().min(1).max(max);

/**
 * Printable ASCII (space to tilde): the fields the auction forwards as HTTP
 * header values to DSPs (`user_agent` is the native bid call's User-Agent).
 * Anything else would fail every DSP call of the auction, so it is refused here.
 */
export const HEADER_VALUE = /^[\x20-\x7E]*$/;

export const AD_FORMATS = ['sponsored_message', 'sponsored_carousel', 'poll'] as const;
export type AdFormat = (typeof AD_FORMATS)[number];

const message = z.strictObject({
  role: z.enum(['user', 'assistant']).describe('Who wrote the message'),
  content: z.string().max(20_000).describe("The message's text"),
  timestamp: z
    .union([
      z
        .string()
        .refine(
          (s) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/.test(s) && !Number.isNaN(Date.parse(s)),
          'must be an ISO 8601 date-time',
        ),
      z.number().nonnegative(),
    ])
    .optional()
    .describe('When it was written: ISO 8601 date-time or Unix time'),
});

const publisherInfo = z.strictObject({
  name: nonEmpty(200).optional().describe("The chatbot's publisher's name (OpenRTB publisher.name)"),
  domain: nonEmpty(253).optional().describe("The publisher's domain (OpenRTB publisher.domain)"),
});

const inventoryShared = {
  /** The chatbot's public id (OpenRTB site.id/app.id when no per-DSP override). */
  id: nonEmpty(200).optional().describe("The chatbot's public id (OpenRTB site.id or app.id)"),
  publisher: publisherInfo.optional().describe("Who publishes the chatbot, when not the publisher key's organization"),
  cat: z
    .array(z.string().regex(/^([0-9]+|[A-Za-z0-9]{6})$/, 'must be an IAB content taxonomy id'))
    .max(50)
    .optional()
    .describe("The chatbot's own IAB Content Taxonomy categories (kept ahead of the ones the auction detects)"),
  search: z.string().max(1000).optional().describe("What the user searched for, if the host knows it (OpenRTB site.search); else the auction's summary"),
  keywords: z.string().max(1000).optional().describe("Comma-separated keywords (OpenRTB keywords); the auction adds the conversation's after them"),
};

const site = z.strictObject({
  ...inventoryShared,
  domain: nonEmpty(253).optional().describe("The chat's site domain"),
  page: z
    .url({ protocol: /^https?$/ })
    .max(2000)
    .optional()
    .describe('The URL of the page the chat is on'),
});

const app = z.strictObject({
  ...inventoryShared,
  bundle: nonEmpty(200).optional().describe("The app's store id (OpenRTB app.bundle)"),
  storeurl: z
    .url({ protocol: /^https?$/ })
    .max(2000)
    .optional()
    .describe("The app's store page"),
  domain: nonEmpty(253).optional().describe("The app's domain"),
});

/**
 * The chat host's privacy signals, named after OpenRTB 2.6's (docs/api-behaviour.md, "Privacy:
 * consent signals and minors"). Their syntax is checked here; the strings are decoded once, at
 * intake, by IAB Tech Lab's libraries (domain/privacy), and one that does not decode is 400
 * `invalid_value` on its field too.
 */
const flag = () => z.int().min(0).max(1);
const regs = z.strictObject({
  gdpr: flag().optional().describe("1 when GDPR applies to the user, 0 when not (OpenRTB regs.gdpr); absent: the GPP string's applicability, else the country"),
  gpp: z
    .string()
    .min(1)
    .max(10_000)
    .regex(/^[A-Za-z0-9_.~-]+$/, 'must be a GPP string')
    .optional()
    .describe('The IAB Global Privacy Platform string (OpenRTB regs.gpp); it must decode'),
  gpp_sid: z
    .array(z.int().min(1).max(255))
    .min(1)
    .max(30)
    .refine((list) => new Set(list).size === list.length, 'must not repeat a section')
    .optional()
    .describe('The GPP sections that apply (OpenRTB regs.gpp_sid); each one regs.gpp holds; absent: all of them'),
  us_privacy: z
    .string()
    .regex(US_PRIVACY, 'must be a US Privacy string such as 1YNN')
    .optional()
    .describe('The IAB US Privacy (CCPA) string, e.g. `1YNN` (OpenRTB regs.us_privacy)'),
  coppa: flag().optional().describe('1 when the user is a child under COPPA: no ad at all (OpenRTB regs.coppa)'),
});

const user = z.strictObject({
  consent: z
    .string()
    .min(1)
    .max(10_000)
    .regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, 'must be a TCF v2.2 TC string')
    .optional()
    .describe('The TCF v2.2 TC string (OpenRTB user.consent); it must decode'),
  age_group: z
    .enum(AGE_GROUPS)
    .optional()
    .describe('`under_13`: no ad; `13_17`: no ad unless the publisher allows contextual-only ads; `adult` or `unknown`: no restriction'),
});

export const adRequestSchema = z
  .strictObject({
    userId: nonEmpty(200)
      .refine((s) => !s.includes('@'), 'must be an anonymous identifier, not an e-mail address')
      .describe('An anonymous id of the user (no e-mail or name): frequency caps count per user'),
    request_type: z.enum(['contextual', 'opener']).default('contextual').describe('`contextual`: an ad beside a conversation; `opener`: one before it starts'),
    chatId: nonEmpty(200).optional().describe('One id per conversation; required for `contextual`, not sent for openers'),
    nAdsBefore: z.int().min(0).max(10_000).optional().describe('Ads already shown earlier in the conversation (contextual only)'),
    messages: z
      .array(message)
      .max(200)
      .optional()
      .describe("The conversation, oldest first: at least 2 messages alternating roles, ending with the user's message and the assistant's answer"),
    ad_formats: z
      .array(z.enum(AD_FORMATS))
      .min(1)
      .max(3)
      .refine((list) => new Set(list).size === list.length, 'must not repeat a format')
      .default(['sponsored_message'])
      .describe('The formats the host can render'),
    prefetched: z.boolean().default(false).describe("True when asked before the assistant's reply is shown (preloading while it streams)"),
    request_id: nonEmpty(200).optional().describe("The host's tracing id"),
    country_code: z
      .string()
      .transform((s) => s.toUpperCase())
      .refine((s) => COUNTRY_CODES.has(s), 'must be an ISO 3166-1 alpha-2 country code')
      .describe("The user's country from IP geolocation (ISO 3166-1 alpha-2; any case)"),
    region: nonEmpty(200).optional().describe("The user's region"),
    city: nonEmpty(200).optional().describe("The user's city"),
    device: z.enum(['mobile', 'desktop', 'tablet']).describe("The user's device type"),
    timezone: z
      .string()
      .min(1)
      .max(MAX_TIME_ZONE_LENGTH)
      .refine(isTimeZone, 'must be an IANA time zone name')
      .describe("The user's IANA time zone (schedules and dayparting)"),
    // Defaults are resolved per protocol (headlines: native 100, OpenRTB title 90): see headlineLimit().
    config: z
      .strictObject({
        max_headline_chars: z.int().min(30).max(1000).optional().describe('The longest headline the host shows (default: native 100, OpenRTB title 90)'),
        image_enabled: z.boolean().default(true).describe('False when the host shows no hero image: text placements (logo and copy) only'),
      })
      .default({ image_enabled: true })
      .describe('How the host renders ads'),
    // DESIGN's chat-host extras.
    ip: z
      .string()
      .refine((s) => isIP(s) !== 0, 'must be an IPv4 or IPv6 address')
      .optional()
      .describe("The user's IP address (invalid-traffic checks and the DSPs' geolocation); the caller's when absent"),
    user_agent: nonEmpty(1000)
      .regex(HEADER_VALUE, 'must be printable ASCII: it is sent to DSPs as the User-Agent header')
      .optional()
      .describe("The user's browser User-Agent; the caller's when absent"),
    language: z
      .string()
      .regex(/^[A-Za-z]{2}$/, 'must be an ISO 639-1 code')
      .transform((s) => s.toLowerCase())
      .optional()
      .describe("The conversation's language (ISO 639-1); detected from the messages when absent"),
    site: site.optional().describe('The web chat the ad shows in (not with app)'),
    app: app.optional().describe('The mobile app the ad shows in (not with site)'),
    tmax: z.int().min(50).max(2000).optional().describe('How long the host waits for the answer (ms): the auction answers within it'),
    bcat: z
      .array(nonEmpty(20))
      .max(100)
      .optional()
      .describe("Categories this request must not get ads of (IAB Content Taxonomy ids), on top of the publisher's"),
    badv: z.array(nonEmpty(253)).max(1000).optional().describe("Advertiser domains this request must not get ads of, on top of the publisher's"),
    regs: regs.optional().describe('Regulations and consent for this user (OpenRTB 2.6 regs): GDPR, GPP, US Privacy, COPPA'),
    user: user.optional().describe("The user's TCF consent string and age group (OpenRTB 2.6 user.consent, and our age_group)"),
  })
  .superRefine((req, ctx) => {
    const issue = (path: (string | number)[], message: string, code: 'required' | 'invalid_value') =>
      ctx.addIssue({ code: 'custom', path, message, params: { code } });
    if (req.site && req.app) issue(['app'], 'send either site or app, not both', 'invalid_value');
    if (req.request_type === 'opener') {
      if (req.chatId !== undefined) issue(['chatId'], 'chatId is not sent for openers', 'invalid_value');
      if (req.messages !== undefined) issue(['messages'], 'messages are not sent for openers', 'invalid_value');
      if (req.nAdsBefore !== undefined) issue(['nAdsBefore'], 'nAdsBefore is for contextual requests only', 'invalid_value');
      return;
    }
    if (req.chatId === undefined) issue(['chatId'], 'chatId is required for contextual requests', 'required');
    if (req.messages === undefined) {
      issue(['messages'], 'messages are required for contextual requests', 'required');
      return;
    }
    const messages = req.messages;
    if (messages.length < 2) {
      issue(['messages'], 'messages must hold at least 2 messages', 'invalid_value');
      return;
    }
    for (let i = 1; i < messages.length; i += 1) {
      if (messages[i].role === messages[i - 1].role) {
        issue(['messages', i, 'role'], 'messages must alternate roles', 'invalid_value');
        return;
      }
    }
    if (messages[messages.length - 2].role !== 'user' || messages[messages.length - 1].role !== 'assistant') {
      issue(['messages'], 'messages must end with a user message followed by an assistant message', 'invalid_value');
    }
  });

export type AdRequest = z.output<typeof adRequestSchema>;

/** The headline limit: the request's, else the protocol's default (native 100, OpenRTB title asset 90). */
export const headlineLimit = (req: AdRequest, protocol: 'native' | 'openrtb' = 'native') =>
  req.config.max_headline_chars ?? (protocol === 'openrtb' ? 90 : 100);
