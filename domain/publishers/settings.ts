import type { Db } from '../../lib/db';
import { invalidValue, notFound } from '../errors';
import { recordChange } from '../audit/log';
import { isUuid } from '../ids';
import { MICROS_PER_DOLLAR } from '../money';
// The categories alone: the classifier's lexicon (compiled when domain/safety loads) is not needed to check a setting.
import { CATEGORY_TABLE, SENSITIVE_CATEGORIES, type SensitiveCategory } from '../safety/categories';
import { MAX_TMAX_MS, presentPublisher } from './index';

/**
 * A publisher's own settings (`adctl publisher update`): a CPM floor, a
 * deadline, conversation density, blocked ad categories and advertiser
 * domains (OpenRTB bcat / badv, enforced on answers), and the sensitive
 * conversation categories it allows, and whether 13-17 year olds may get
 * contextual-only ads (domain/privacy). The auctions pick a change up within
 * seconds (the `auction_index` notification on publishers).
 */
export interface PublisherSettingsInput {
  floorUsd?: number;
  tmaxMs?: number;
  /** null: no limit. */
  maxAdsPerConversation?: number | null;
  minTurnsBetweenAds?: number | null;
  blockCategories?: string[];
  allowCategories?: string[];
  blockAdvertisers?: string[];
  /** Ad requests per second; null: the auction's default. */
  rateLimitPerSecond?: number | null;
  /** 0..1; null: the platform's default (domain/relevance/score.ts). */
  minRelevance?: number | null;
  /** 13-17 year olds may get contextual-only ads (domain/privacy); false: no ad. */
  teenContextualAds?: boolean;
}

/** At most this many entries in each list (OpenRTB bcat/badv stay small). */
export const MAX_LIST = 200;
/** An IAB Content Taxonomy id: numeric (e.g. 483) or six short alphanumeric characters (3.0), or IAB1-IAB26 style (1.0). */
const CATEGORY_ID = /^(?:[0-9]{1,5}|[A-Za-z0-9]{6}|IAB[0-9]{1,2}(?:-[0-9]{1,2})?)$/;
/** A host name: labels of letters, digits and hyphens. */
const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/**
 * An advertiser domain as blocks compare it: trimmed, lower case, without the
 * trailing dot of a fully qualified name (`Example.COM.` is `example.com`).
 * The one normalization for the publisher's setting, a request's badv and a
 * bid's adomain (auction/publisher/blocks.ts).
 */
export const normalizeDomain = (domain: string): string => domain.trim().toLowerCase().replace(/\.+$/, '');

function intIn(param: string, value: number | null | undefined, min: number, max: number): number | null | undefined {
  if (value === undefined || value === null) return value;
  if (!Number.isInteger(value) || value < min || value > max) throw invalidValue(param, `${param} must be an integer from ${min} to ${max}`);
  return value;
}

function listOf(param: string, values: string[] | undefined, valid: (v: string) => boolean, what: string): string[] | undefined {
  if (values === undefined) return undefined;
  const cleaned = [...new Set(values.map((v) => v.trim()).filter((v) => v !== ''))];
  if (cleaned.length > MAX_LIST) throw invalidValue(param, `${param} takes at most ${MAX_LIST} entries`);
  const bad = cleaned.find((v) => !valid(v));
  if (bad !== undefined) throw invalidValue(param, `${param}: ${JSON.stringify(bad.slice(0, 64))} is not ${what}`);
  return cleaned;
}

function relevanceIn(value: number | null | undefined): number | null | undefined {
  if (value === undefined || value === null) return value;
  if (!Number.isFinite(value) || value < 0 || value > 1) throw invalidValue('min_relevance', 'min_relevance must be a number from 0 to 1');
  return value;
}

const allowable = (v: string): boolean =>
  (SENSITIVE_CATEGORIES as readonly string[]).includes(v) && CATEGORY_TABLE[v as SensitiveCategory].defaultPolicy !== 'never';

/** Checks every setting given; the result holds only those (Prisma's update data). */
export function publisherSettingsData(input: PublisherSettingsInput) {
  const floor = input.floorUsd;
  if (floor !== undefined && (!Number.isFinite(floor) || floor < 0 || floor > 1000))
    throw invalidValue('floor_cpm', 'floor_cpm must be a number of USD from 0 to 1000');
  const data = {
    floorMicros: floor === undefined ? undefined : BigInt(Math.round(floor * MICROS_PER_DOLLAR)),
    tmaxMs: intIn('tmax', input.tmaxMs, 50, MAX_TMAX_MS) ?? undefined,
    maxAdsPerConversation: intIn('max_ads_per_conversation', input.maxAdsPerConversation, 0, 1000),
    minTurnsBetweenAds: intIn('min_turns_between_ads', input.minTurnsBetweenAds, 0, 1000),
    rateLimitPerSecond: intIn('rate_limit', input.rateLimitPerSecond, 1, 100_000),
    blockedCategories: listOf('block_categories', input.blockCategories, (v) => CATEGORY_ID.test(v), 'an IAB Content Taxonomy id'),
    allowedCategories: listOf(
      'allow_categories',
      input.allowCategories,
      allowable,
      `a category a publisher may allow (${SENSITIVE_CATEGORIES.filter(allowable).join(', ')})`,
    ),
    blockedAdvertisers: listOf('block_advertisers', input.blockAdvertisers?.map(normalizeDomain), (v) => DOMAIN.test(v), 'an advertiser domain'),
    minRelevance: relevanceIn(input.minRelevance),
    teenContextualAds: input.teenContextualAds,
  };
  return Object.fromEntries(Object.entries(data).filter(([, v]) => v !== undefined)) as Partial<typeof data>;
}

export async function findPublisher(db: Db, publicId: string) {
  const publisher = isUuid(publicId) ? await db.publisher.findUnique({ where: { publicId: publicId.toLowerCase() } }) : null;
  if (!publisher) throw notFound('publisher', 'publisher_id');
  return publisher;
}

export async function updatePublisherSettings(db: Db, publicId: string, input: PublisherSettingsInput) {
  const publisher = await findPublisher(db, publicId);
  return db.$transaction(async (tx) => {
    // Read under the row lock, so the audit entry's before is what this update replaced.
    await tx.$queryRaw`SELECT id FROM publishers WHERE id = ${publisher.id}::uuid FOR UPDATE`;
    const before = await tx.publisher.findUniqueOrThrow({ where: { id: publisher.id } });
    const after = await tx.publisher.update({ where: { id: publisher.id }, data: publisherSettingsData(input) });
    await recordChange(tx, { organizationId: null, entity: { type: 'publisher', id: after.publicId }, action: 'updated', before, after });
    return presentPublisher(after);
  });
}

export async function showPublisher(db: Db, publicId: string) {
  return presentPublisher(await findPublisher(db, publicId));
}
