import type { Db, Prisma } from '../../lib/db';
import { MICROS_PER_DOLLAR } from '../money';
import type { PublisherSafetyOverrides } from '../safety';
import { hashSecret, newSecret } from '../../lib/secrets';
import { invalidValue, required } from '../errors';
import { recordChange } from '../audit/log';

/**
 * Publishers: the chat hosts that call the auction's POST /v1/ad_requests.
 * Their key (`pk_` + 256 random bits) is shown once and stored as SHA-256,
 * exactly like advertiser API keys.
 */
export const PUBLISHER_KEY_PREFIX = 'pk_';
export const PUBLISHER_KEY_PATTERN = /^pk_[A-Za-z0-9_-]{43}$/;
/** The spec's OpenRTB tmax and our default auction deadline. */
export const MAX_TMAX_MS = 2000;

export interface NewPublisher {
  name: string;
  domain?: string;
  tmaxMs?: number;
  /** A sandbox publisher: its auctions run whole, DSPs get test: 1, nothing is billed or counted. */
  test?: boolean;
}

export async function createPublisher(db: Db, input: NewPublisher) {
  if (!input.name?.trim()) throw required('name');
  const tmaxMs = input.tmaxMs ?? MAX_TMAX_MS;
  if (!Number.isInteger(tmaxMs) || tmaxMs < 50 || tmaxMs > MAX_TMAX_MS) throw invalidValue('tmax', `tmax must be an integer between 50 and ${MAX_TMAX_MS}`);
  const key = newSecret(PUBLISHER_KEY_PREFIX);
  const publisher = await db.$transaction(async (tx) => {
    const created = await tx.publisher.create({
      data: { name: input.name.trim(), domain: input.domain?.trim().toLowerCase() || null, keyHash: hashSecret(key), tmaxMs, test: input.test ?? false },
    });
    await recordChange(tx, { organizationId: null, entity: { type: 'publisher', id: created.publicId }, action: 'created', before: null, after: created });
    return created;
  });
  return { publisher_id: publisher.publicId, publisher_key: key };
}

export async function listPublishers(db: Db) {
  const rows = await db.publisher.findMany({ orderBy: { createdAt: 'asc' } });
  return rows.map(presentPublisher);
}

type PublisherRow = Prisma.PublisherGetPayload<object>;

export const presentPublisher = (p: PublisherRow) => ({
  publisher_id: p.publicId,
  name: p.name,
  domain: p.domain,
  tmax: p.tmaxMs,
  floor_cpm: Number(p.floorMicros) / MICROS_PER_DOLLAR,
  max_ads_per_conversation: p.maxAdsPerConversation,
  min_turns_between_ads: p.minTurnsBetweenAds,
  block_categories: p.blockedCategories,
  allow_categories: p.allowedCategories,
  block_advertisers: p.blockedAdvertisers,
  rate_limit: p.rateLimitPerSecond,
  min_relevance: p.minRelevance,
  teen_contextual_ads: p.teenContextualAds,
  test: p.test,
  enabled: p.enabled,
  created_at: p.createdAt.toISOString(),
});

/** What the auction keeps in memory per publisher (keyed by key hash). */
export interface PublisherRecord {
  id: string;
  publicId: string;
  name: string;
  domain: string | null;
  tmaxMs: number;
  floorMicros: number;
  maxAdsPerConversation: number | null;
  minTurnsBetweenAds: number;
  /** OpenRTB bcat: ad categories the publisher refuses. */
  blockedCategories: readonly string[];
  /** OpenRTB badv: advertiser domains the publisher refuses. */
  blockedAdvertisers: ReadonlySet<string>;
  /** Sensitive conversation categories the publisher allows (their `block` default relaxed). */
  safetyOverrides: PublisherSafetyOverrides;
  /** Ad requests a second it may send (all auction copies together); null: the auction's default (auction/publisher/rate-limit.ts). */
  rateLimitPerSecond: number | null;
  /** The relevance our ads must reach beside this publisher's conversations; null: the platform's default. */
  minRelevance: number | null;
  /** 13-17 year olds may get contextual-only ads (domain/privacy); false: no ad. */
  teenContextualAds: boolean;
  test: boolean;
}

/** A publisher with every setting at its default (the table's column defaults): adctl dsp check's, the bidder fixtures'. */
export const publisherWithDefaults = (identity: Pick<PublisherRecord, 'id' | 'publicId' | 'name' | 'domain'>): PublisherRecord => ({
  ...identity,
  tmaxMs: 2000,
  floorMicros: 0,
  maxAdsPerConversation: null,
  minTurnsBetweenAds: 0,
  blockedCategories: [],
  blockedAdvertisers: new Set(),
  safetyOverrides: {},
  rateLimitPerSecond: null,
  minRelevance: null,
  teenContextualAds: false,
  test: false,
});

export const publisherRecord = (p: PublisherRow): PublisherRecord => ({
  id: p.id,
  publicId: p.publicId,
  name: p.name,
  domain: p.domain,
  tmaxMs: p.tmaxMs,
  floorMicros: Number(p.floorMicros),
  maxAdsPerConversation: p.maxAdsPerConversation,
  minTurnsBetweenAds: p.minTurnsBetweenAds ?? 0,
  blockedCategories: p.blockedCategories,
  blockedAdvertisers: new Set(p.blockedAdvertisers),
  safetyOverrides: Object.fromEntries(p.allowedCategories.map((c) => [c, 'allow'])),
  rateLimitPerSecond: p.rateLimitPerSecond,
  minRelevance: p.minRelevance,
  teenContextualAds: p.teenContextualAds,
  test: p.test,
});

export async function loadEnabledPublishers(db: Db): Promise<Map<string, PublisherRecord>> {
  const rows = await db.publisher.findMany({ where: { enabled: true } });
  return new Map(rows.map((p) => [p.keyHash, publisherRecord(p)]));
}
