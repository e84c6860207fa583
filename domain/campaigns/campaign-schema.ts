import { z } from 'zod';
import { nestedAdGroupInputSchema, refineDistinctImages } from './ad-group-schema';
import { MAX_AD_GROUPS_PER_CAMPAIGN } from '../caps';
import { COUNTRY_CODE_PATTERN, normalizeCountryCode } from '../countries';
import { MIN_BUDGET_MICROS } from '../money';
import { fail, refusedField, unixSeconds } from '../schema-rules';

export const RECURRING_FREQUENCIES = ['daily', 'weekly', 'monthly', 'quarterly', 'yearly'] as const;
export const PRICING_MODELS = ['cpm', 'cpc'] as const;

/** The spec types ad_account_id as a UUID: a malformed one is `invalid_value`, an unknown one 404. */
const adAccountId = z.guid().describe('UUID of the ad account');

/** Each `include[]` entry; keys other than these (sub-country detail) are ignored. */
const locationSchema = z.looseObject({
  country_code: z.string().nullish().describe('ISO 3166-1 alpha-2, any letter case; read first'),
  id: z.string().nullish().describe('Alias of country_code'),
  type: z.string().nullish().describe('Always country on read-back'),
});

/**
 * What the OpenAPI document says of an entry, exactly the rule `countryOf`
 * applies: an assigned code in `country_code`, or none there and one in `id`.
 */
const countryCode = z.string().regex(new RegExp(COUNTRY_CODE_PATTERN));
const documentedLocationSchema = z.union([
  z.looseObject({
    country_code: countryCode.describe('ISO 3166-1 alpha-2, any letter case; read first'),
    id: z.string().nullish(),
    type: z.string().nullish(),
  }),
  z.looseObject({ country_code: z.null().optional(), id: countryCode.describe('Alias of country_code'), type: z.string().nullish() }),
]);

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
  }, z.array(documentedLocationSchema))
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
export const campaignCreateSchema = z
  .strictObject({
    name: campaignName,
    description: z.string().nullish(),
    // A missing budget reports the field the spec names: budget.lifetime_spend_limit_micros.
    budget: z.preprocess((value) => value ?? {}, budgetSchema),
    ad_groups: z
      .array(nestedAdGroupInputSchema)
      .min(1)
      .max(MAX_AD_GROUPS_PER_CAMPAIGN)
      .describe(`1 to ${MAX_AD_GROUPS_PER_CAMPAIGN} ad groups`)
      .transform((groups) => groups.map((group, i) => ({ ...group, name: group.name ?? `Ad group ${i + 1}` }))),
    start_time: unixSeconds.optional().describe('Unix seconds; defaults to about two days from now'),
    end_time: unixSeconds.nullish().describe('Unix seconds; omitted or null is open-ended'),
    targeting: targetingSchema.optional(),
    recurring_frequency: z.enum(RECURRING_FREQUENCIES).default('daily'),
    pricing_model: z.enum(PRICING_MODELS).default('cpm'),
    ad_account_id: adAccountId.optional().describe("Defaults to the organization's default ad account"),
  })
  .superRefine((campaign, ctx) => refineDistinctImages(campaign.ad_groups, (g) => ['ad_groups', g], ctx));
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
