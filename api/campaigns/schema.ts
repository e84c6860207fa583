import { z } from 'zod';
import { normalizeCountryCode } from '../../lib/countries';
import { MAX_CARD_TITLE } from '../creatives/generator';
import { listPageSchema } from '../http/pagination';

/**
 * Request and response schemas of the campaign tree (campaigns, ad groups, ads),
 * shared by the routes, the create saga and the OpenAPI document.
 *
 * Error codes come from the mapping in api/http/validation.ts. Where the spec
 * names another code for a field, a check sets it through `params.code`.
 * Request bodies are strict: an unknown parameter is 400 `invalid_value` naming
 * it, as Stripe does, so a misspelt field never passes silently. The one
 * exception is a targeting location, whose sub-country detail the spec ignores.
 */

export const MAX_POLL_TITLE = 120;
export const MIN_BUDGET_MICROS = 990_000;
export const MAX_BID_MICROS = 100_000_000;
export const MAX_NAME = 255;
/** 9999-12-31T23:59:59Z: the last second a Date (and Postgres) round-trips. */
const MAX_UNIX_SECONDS = 253_402_300_799;

export const CREATIVE_TYPES = ['chat_card', 'poll'] as const;
export type CreativeType = (typeof CREATIVE_TYPES)[number];
export const STATUSES = ['active', 'paused', 'archived'] as const;
export type Status = (typeof STATUSES)[number];
export const RECURRING_FREQUENCIES = ['daily', 'weekly', 'monthly', 'quarterly', 'yearly'] as const;
export const PRICING_MODELS = ['cpm', 'cpc'] as const;

// ---------------------------------------------------------------------------
// Building blocks
// ---------------------------------------------------------------------------

type Ctx = z.core.$RefinementCtx;

/** Adds an issue that api/http/validation.ts reports with exactly `code`. */
function fail(ctx: Ctx, code: string, message: string, path: PropertyKey[] = []): void {
  ctx.addIssue({ code: 'custom', message, path, params: { code } });
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Any failure of `schema` (missing included) is one `invalid_value` on the field itself. */
function asOneValue<S extends z.ZodType>(schema: S, message: string) {
  return z.preprocess((value, ctx) => {
    if (!schema.safeParse(value).success) fail(ctx, 'invalid_value', message);
    return value;
  }, schema);
}

/** A field the body must not carry: sending it at all is a 400 with `code`. */
function refusedField(code: string, message: string) {
  return z
    .preprocess((value, ctx) => {
      fail(ctx, code, message);
      return value;
    }, z.never())
    .optional()
    .describe(message);
}

/** Ids of other resources: anything unknown or malformed is a 404 on lookup, not a format error. */
const resourceId = (what: string) => z.string().min(1).describe(`UUID of the ${what}`);
/** The spec types ad_account_id as a UUID: a malformed one is `invalid_value`, an unknown one 404. */
const adAccountId = z.guid().describe('UUID of the ad account');

const unixSeconds = z.int().min(0).max(MAX_UNIX_SECONDS).describe('Unix seconds (UTC)');
const maxBidMicros = z.int().min(1).max(MAX_BID_MICROS);
const statusInput = z.enum(STATUSES);

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------
// Creatives and ads
// ---------------------------------------------------------------------------

const chatCardInputSchema = z
  .strictObject({
    type: z.literal('chat_card'),
    // Required unless the ad sets auto_generate: checked on the ad (see requireCardTitle).
    title: z.string().min(1).max(MAX_CARD_TITLE).optional(),
    body: z.string().optional(),
    cta: z.string().optional(),
    file_id: z.string().optional().describe('Image uploaded through POST /v1/upload'),
    image_url: z.string().optional().describe('Public image URL that the service downloads and stores'),
  })
  .superRefine((card, ctx) => {
    if (card.file_id !== undefined && card.image_url !== undefined) {
      fail(ctx, 'invalid_value', 'Send either file_id or image_url, not both', ['file_id']);
    }
  });

const pollInputSchema = z.strictObject({
  type: z.literal('poll'),
  title: z.string().min(1).max(MAX_POLL_TITLE).describe('The question'),
  options: asOneValue(z.array(z.string().min(1)).min(2).max(4), 'options must be a list of 2 to 4 non-empty strings'),
  target_url: z.string().min(1).max(2048).refine(isHttpUrl, 'target_url must be an absolute http(s) URL'),
});

/** Missing or not an object is `invalid_value` on `creative`; an unknown `type` on `creative.type`. */
export const creativeInputSchema = z.preprocess((value, ctx) => {
  if (!isPlainObject(value)) fail(ctx, 'invalid_value', 'creative must be an object with a type of chat_card or poll');
  return value;
}, z.discriminatedUnion('type', [chatCardInputSchema, pollInputSchema]));
export type CreativeInput = z.output<typeof creativeInputSchema>;

const adName = z.string().min(1).max(MAX_NAME).describe('Defaults to the creative title');

/** auto_generate is chat_card only; without it a card needs its title. */
function requireCardTitle(ad: { auto_generate?: boolean; creative: CreativeInput }, ctx: Ctx): void {
  if (ad.creative?.type === 'poll') {
    if (ad.auto_generate) fail(ctx, 'poll_cannot_be_ai', 'auto_generate is available for chat_card creatives only', ['auto_generate']);
  } else if (ad.creative?.type === 'chat_card' && !ad.auto_generate && ad.creative.title === undefined) {
    fail(ctx, 'required', 'creative.title is required unless auto_generate is true', ['creative', 'title']);
  }
}

const adFields = {
  name: adName.optional(),
  auto_generate: z.boolean().default(false).describe('chat_card only: the service writes the missing title and body'),
  creative: creativeInputSchema,
};

/** An ad inside an ad group create (standalone or nested in a campaign create). */
export const adInputSchema = z.strictObject(adFields).superRefine(requireCardTitle);
export type AdInput = z.output<typeof adInputSchema>;

/** `POST /v1/ads`. */
export const adCreateSchema = z
  .strictObject({ ad_group_id: resourceId('ad group'), ...adFields })
  .superRefine(requireCardTitle);
export type AdCreateInput = z.output<typeof adCreateSchema>;

/**
 * `POST /v1/ads/{ad_id}`. `creative` replaces the whole creative (no
 * auto_generate here, so a card needs its title); its image changes only when
 * the replacement names a new `file_id` or `image_url`.
 */
export const adUpdateSchema = z
  .strictObject({ name: adName.optional(), status: statusInput.optional(), creative: creativeInputSchema.optional() })
  .superRefine((ad, ctx) => {
    if (ad.creative) requireCardTitle({ creative: ad.creative }, ctx);
  });
export type AdUpdateInput = z.output<typeof adUpdateSchema>;

// ---------------------------------------------------------------------------
// Ad groups
// ---------------------------------------------------------------------------

const adsSchema = z
  .array(adInputSchema)
  .min(1)
  .superRefine((ads, ctx) => {
    if (new Set(ads.map((ad) => ad?.creative?.type)).size > 1) {
      fail(ctx, 'invalid_value', 'All ads of an ad group must share one creative type');
    }
  });

const adGroupName = z.string().min(1).max(MAX_NAME);
const contextHints = z.array(z.string().min(1)).describe('Hints steering which conversations the ads serve in');

const biddingConfigSchema = z.strictObject({
  // Echoes the read-back shape; impressions are the only billing event.
  billing_event_type: z.literal('impression').optional(),
  max_bid_micros: maxBidMicros.nullable().optional().describe('1 to 100000000; null or omitted leaves it unset'),
});

/** An ad group inside `POST /v1/campaigns`: name and hints are optional there. */
export const nestedAdGroupInputSchema = z.strictObject({
  name: adGroupName.optional(),
  context_hints: contextHints.optional(),
  bidding_config: biddingConfigSchema.optional(),
  ads: adsSchema,
});

/** `POST /v1/ad_groups`. */
export const adGroupCreateSchema = z.strictObject({
  campaign_id: resourceId('campaign'),
  name: adGroupName,
  context_hints: contextHints.min(1),
  bidding_config: biddingConfigSchema.optional(),
  ads: adsSchema,
});
export type AdGroupCreateInput = z.output<typeof adGroupCreateSchema>;

/** What both ad group creates share; tree.ts builds an ad group from it. */
export interface AdGroupInput {
  name: string;
  context_hints?: string[];
  bidding_config?: { max_bid_micros?: number | null };
  ads: AdInput[];
}

/** `POST /v1/ad_groups/{id}`: `context_hints` replaces the set. */
export const adGroupUpdateSchema = z.strictObject({
  name: adGroupName.optional(),
  context_hints: contextHints.min(1).optional(),
  bidding_config: biddingConfigSchema.optional(),
  status: statusInput.optional(),
});
export type AdGroupUpdateInput = z.output<typeof adGroupUpdateSchema>;

// ---------------------------------------------------------------------------
// Campaigns
// ---------------------------------------------------------------------------

/** Each `include[]` entry; keys other than these (sub-country detail) are ignored. */
const locationSchema = z.looseObject({
  country_code: z.string().nullish().describe('ISO 3166-1 alpha-2, any letter case; read first'),
  id: z.string().nullish().describe('Alias of country_code'),
  type: z.string().nullish().describe('Always country on read-back'),
});

/** The uppercase code of a location entry, `country_code` read before `id`; null when it has none. */
function countryOf(entry: unknown): string | null {
  const parsed = locationSchema.safeParse(entry);
  return parsed.success ? normalizeCountryCode(parsed.data.country_code ?? parsed.data.id) : null;
}

/** Every location error is `invalid_value` on `targeting.locations.include` itself, as the spec says. */
const includeSchema = z
  .preprocess((value, ctx) => {
    if (Array.isArray(value) && value.some((entry) => countryOf(entry) === null)) {
      fail(ctx, 'invalid_value', 'Each location needs a country_code (or id) holding an ISO 3166-1 alpha-2 code');
    }
    return value;
  }, z.array(locationSchema))
  .transform((entries) => [...new Set(entries.map((entry) => countryOf(entry)!))]);

/** Parses to the campaign's uppercase country codes, de-duplicated; `[]` is untargeted. */
export const targetingSchema = z
  .strictObject({ locations: z.strictObject({ include: includeSchema.optional() }).optional() })
  .nullable()
  .transform((targeting) => targeting?.locations?.include ?? []);

const campaignName = z.string().min(3).max(100);
const budgetSchema = z.strictObject({ lifetime_spend_limit_micros: z.int().min(MIN_BUDGET_MICROS).describe('At least 990000; no upper cap') });

/**
 * `POST /v1/campaigns` (the create saga validates with it). Parsed output:
 * `targeting` is the list of country codes, ad groups without a name are
 * named `Ad group <n>`, the enums carry their defaults. `start_time`'s default
 * is the saga's to fill.
 */
export const campaignCreateSchema = z.strictObject({
  name: campaignName,
  description: z.string().nullish(),
  // A missing budget reports the field the spec names: budget.lifetime_spend_limit_micros.
  budget: z.preprocess((value) => value ?? {}, budgetSchema),
  ad_groups: z
    .array(nestedAdGroupInputSchema)
    .min(1)
    .transform((groups) => groups.map((group, i) => ({ ...group, name: group.name ?? `Ad group ${i + 1}` }))),
  start_time: unixSeconds.optional().describe('Unix seconds; defaults to about two days from now'),
  end_time: unixSeconds.nullish().describe('Unix seconds; omitted or null is open-ended'),
  targeting: targetingSchema.optional(),
  recurring_frequency: z.enum(RECURRING_FREQUENCIES).default('daily'),
  pricing_model: z.enum(PRICING_MODELS).default('cpm'),
  ad_account_id: adAccountId.optional().describe("Defaults to the organization's default ad account"),
});
export type CampaignCreateInput = z.output<typeof campaignCreateSchema>;

/**
 * `POST /v1/campaigns/{campaign_id}`: only sent fields change. `status` is 400
 * `use_status_action`; `review_status` (the service's), `recurring_frequency`
 * and `pricing_model` (fixed at create) are 400 `invalid_value` naming the
 * field rather than being ignored. `status` comes first so it wins over any
 * other error in the same body.
 */
export const campaignUpdateSchema = z.strictObject({
  status: refusedField('use_status_action', 'status cannot be updated; use the activate, pause and archive actions'),
  review_status: refusedField('invalid_value', 'review_status is read-only'),
  recurring_frequency: refusedField('invalid_value', 'recurring_frequency cannot be changed after create'),
  pricing_model: refusedField('invalid_value', 'pricing_model cannot be changed after create'),
  name: campaignName.optional(),
  description: z.string().nullish().describe('null clears it'),
  budget: budgetSchema.optional(),
  targeting: targetingSchema.optional().describe('Replaces the country list'),
  start_time: unixSeconds.optional(),
  end_time: unixSeconds.nullish().describe('null makes the campaign open-ended'),
});
export type CampaignUpdateInput = z.output<typeof campaignUpdateSchema>;

// List filters, read from the query string next to the pagination parameters.
export const campaignListFilterSchema = z.object({ ad_account_id: adAccountId.optional() });
export const adGroupListFilterSchema = z.object({ campaign_id: resourceId('campaign') });
export const adListFilterSchema = z.object({ ad_group_id: resourceId('ad group') });

// ---------------------------------------------------------------------------
// Resources as read back (OpenAPI); presenters.ts builds them
// ---------------------------------------------------------------------------

const unixTime = z.int().describe('Unix seconds (UTC)');
/** Archived ad groups and ads read back as paused. */
const visibleStatus = z.enum(['active', 'paused']);
const reviewStatus = z.enum(['in_review', 'approved', 'rejected']);

export const campaignSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  status: z.enum(STATUSES),
  review_status: reviewStatus,
  start_time: unixTime,
  end_time: unixTime.nullable(),
  budget: z.object({ lifetime_spend_limit_micros: z.int() }),
  recurring_frequency: z.enum(RECURRING_FREQUENCIES),
  pricing_model: z.enum(PRICING_MODELS),
  targeting: z.object({
    locations: z.object({
      include: z.array(z.object({ id: z.string(), type: z.literal('country'), country_code: z.string() })),
    }),
  }),
  created_at: unixTime,
  updated_at: unixTime,
});
export type CampaignObject = z.output<typeof campaignSchema>;

export const adGroupSchema = z.object({
  id: z.string(),
  campaign_id: z.string(),
  name: z.string(),
  context_hints: z.array(z.string()),
  status: visibleStatus,
  bidding_config: z.object({ billing_event_type: z.literal('impression'), max_bid_micros: z.int().nullable() }),
  created_at: unixTime,
  updated_at: unixTime,
});
export type AdGroupObject = z.output<typeof adGroupSchema>;

export const creativeSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('chat_card'),
    title: z.string(),
    body: z.string(),
    cta: z.string().optional().describe('Present only when set'),
    image_url: z.string().nullable(),
  }),
  z.object({ type: z.literal('poll'), title: z.string(), options: z.array(z.string()), target_url: z.string() }),
]);
export type CreativeObject = z.output<typeof creativeSchema>;

export const adSchema = z.object({
  id: z.string(),
  ad_group_id: z.string(),
  name: z.string(),
  status: visibleStatus,
  review_status: reviewStatus.describe("The parent campaign's"),
  creative: creativeSchema,
});
export type AdObject = z.output<typeof adSchema>;

export const campaignListSchema = listPageSchema(campaignSchema);
export const adGroupListSchema = listPageSchema(adGroupSchema);
export const adListSchema = listPageSchema(adSchema);
