import { randomUUID } from 'node:crypto';
import pLimit from 'p-limit';
import type { AssetStore } from '../../lib/asset-store';
import { executeSql, utcTimestamp, type Db, type SqlExecutor } from '../../lib/db';
import { createAdAsset, createImageLoader, garbageCollect, type ImageLoader, type LoadedImage } from '../assets/ad-images';
import type { CreativeContext, CreativeGenerator, GeneratedCopy } from '../creatives/generator';
import type { CreativeReviewQueue } from '../creatives/review';
import type { AdGroupInput } from './ad-group-schema';
import type { AdInput } from './ad-schema';
import type { CreativeInput, CreativeType } from '../creatives/schema';
import type { Change } from '../audit/log';

/**
 * Building ad groups and ads, shared by the standalone creates and the
 * campaign create saga. Two phases, so that no I/O runs inside a transaction:
 *  1. prepare*: validated input → rows to write (images loaded and checked,
 *     auto-generated copy filled in, default names). Throws the spec's errors.
 *  2. insert*: writes rows and assets inside the caller's transaction and
 *     returns every id it created, so a saga can compensate.
 */

export interface TreeDeps {
  db: Db;
  assets: AssetStore;
  creatives: CreativeGenerator;
  /** Where new and changed creatives of approved campaigns go for review (domain/creatives/review.ts). */
  creativeReviews?: CreativeReviewQueue;
}

/** The advertiser behind the ads: the copy generator writes from it. */
export interface AccountContext {
  organizationId: string;
  accountName: string;
  accountUrl: string;
}

/** An ad's creative as stored. A card's image is loaded but not yet an asset. */
export type PreparedCreative =
  | { type: 'chat_card'; title: string; body: string | null; cta: string | null; image: LoadedImage | null }
  | { type: 'poll'; title: string; options: string[]; targetUrl: string };

export interface PreparedAd {
  name: string;
  creative: PreparedCreative;
}

export interface PreparedAdGroup {
  name: string;
  contextHints: string[];
  maxBidMicros: number | null;
  creativeType: CreativeType;
  ads: PreparedAd[];
}

/** Where the copy of an auto-generated card comes from. */
export interface AdGroupContext {
  name: string;
  contextHints: string[];
}

const join = (prefix: string, key: string) => (prefix ? `${prefix}.${key}` : key);

/** Copy-generator calls one request runs at once (auto_generate may be set on every ad). */
export const GENERATOR_CONCURRENCY = 4;

/**
 * What preparing the ads of one request shares: the advertiser, one image
 * loader (each distinct image loaded and decoded once, downloads bounded) and
 * a bounded copy generator. Make one per request with `prepareScope`.
 */
export interface PrepareScope {
  account: AccountContext;
  loadImage: ImageLoader;
  generate(context: CreativeContext): Promise<GeneratedCopy>;
}

export function prepareScope(deps: TreeDeps, account: AccountContext): PrepareScope {
  const generatorSlots = pLimit(GENERATOR_CONCURRENCY);
  return {
    account,
    loadImage: createImageLoader(deps.db, deps.assets, account.organizationId),
    generate: (context) => generatorSlots(() => deps.creatives.generate(context)),
  };
}

/**
 * A creative ready to store. `creativeParam` is its path in the request
 * (`creative`, `ads[0].creative`, ...), used in image errors.
 */
export async function prepareCreative(
  scope: PrepareScope,
  group: AdGroupContext,
  creative: CreativeInput,
  autoGenerate: boolean,
  creativeParam: string,
): Promise<PreparedCreative> {
  if (creative.type === 'poll') {
    return { type: 'poll', title: creative.title, options: creative.options, targetUrl: creative.target_url };
  }
  const { account } = scope;
  const image = await scope.loadImage(creative, creativeParam);
  let { title, body } = creative;
  // auto_generate fills only what the advertiser left out.
  if (autoGenerate && (title === undefined || body === undefined)) {
    const copy = await scope.generate({
      adGroupName: group.name,
      contextHints: group.contextHints,
      accountName: account.accountName,
      accountUrl: account.accountUrl,
    });
    title ??= copy.title;
    body ??= copy.body;
  }
  // The schema requires a title unless auto_generate is set, and the generator always writes one.
  return { type: 'chat_card', title: title!, body: body ?? null, cta: creative.cta || null, image };
}

/** One ad; its name defaults to the creative title (card headline or poll question). */
export async function prepareAd(scope: PrepareScope, group: AdGroupContext, ad: AdInput, adParam: string): Promise<PreparedAd> {
  const creative = await prepareCreative(scope, group, ad.creative, ad.auto_generate, join(adParam, 'creative'));
  return { name: ad.name ?? creative.title, creative };
}

/** The ads of one group, in order; `adsParam` is the ads array's path (`ads`, `ad_groups[0].ads`). */
export async function prepareAds(scope: PrepareScope, group: AdGroupContext, ads: AdInput[], adsParam: string): Promise<PreparedAd[]> {
  // All at once (the scope bounds downloads and generator calls); the first
  // failing ad in request order is the one reported, whichever failed first.
  const settled = await Promise.allSettled(ads.map((ad, i) => prepareAd(scope, group, ad, `${adsParam}[${i}]`)));
  const failed = settled.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((result) => (result as PromiseFulfilledResult<PreparedAd>).value);
}

/** An ad group and its ads; `groupParam` is the group's path (`''` standalone, `ad_groups[0]` nested). */
export async function prepareAdGroup(scope: PrepareScope, input: AdGroupInput, groupParam: string): Promise<PreparedAdGroup> {
  const group = { name: input.name, contextHints: input.context_hints ?? [] };
  return {
    ...group,
    maxBidMicros: input.bidding_config?.max_bid_micros ?? null,
    creativeType: input.ads[0].creative.type,
    ads: await prepareAds(scope, group, input.ads, join(groupParam, 'ads')),
  };
}

/** The Ad columns of a creative (its image excepted, which becomes an asset). */
export function creativeColumns(creative: PreparedCreative) {
  return creative.type === 'poll'
    ? { creativeType: 'poll', title: creative.title, body: null, cta: null, options: creative.options, targetUrl: creative.targetUrl }
    : { creativeType: 'chat_card', title: creative.title, body: creative.body, cta: creative.cta, options: [], targetUrl: null };
}

/** Stores a card's image as the ad's own asset; null when it has none. Inside the ad's transaction. */
export async function createCreativeAsset(sql: SqlExecutor, store: AssetStore, organizationId: string, creative: PreparedCreative): Promise<string | null> {
  return creative.type === 'chat_card' && creative.image ? createAdAsset(sql, store, organizationId, creative.image) : null;
}

export interface InsertedAds {
  adIds: string[];
  /** Assets created for the ads; `deleteAssets` removes them (and unused bytes). */
  assetIds: string[];
}

let lastCreatedMs = 0;

/**
 * A new row's created_at (UTC, as a `timestamp` literal): the clock, but at
 * least 1 ms after the last one this process gave, so rows written in one go
 * list (by created_at, then id) in the order they were written.
 */
export function creationTime(): string {
  lastCreatedMs = Math.max(Date.now(), lastCreatedMs + 1);
  return utcTimestamp(lastCreatedMs);
}

/**
 * Creates the ads (status `active`) and their assets, inside the caller's
 * transaction. Plain SQL, like the rest of the tree's writes: Prisma's query
 * compiler costs more CPU than these statements (bench/history.md, campaign-create).
 */
export async function insertAds(sql: SqlExecutor, store: AssetStore, organizationId: string, adGroupId: string, ads: PreparedAd[]): Promise<InsertedAds> {
  const inserted: InsertedAds = { adIds: [], assetIds: [] };
  for (const ad of ads) {
    const assetId = await createCreativeAsset(sql, store, organizationId, ad.creative);
    if (assetId) inserted.assetIds.push(assetId);
    const c = creativeColumns(ad.creative);
    const id = randomUUID();
    const createdAt = creationTime();
    await executeSql(
      sql,
      `INSERT INTO ads (id, ad_group_id, name, status, creative_type, title, body, cta, options, target_url, asset_id, created_at, updated_at)
       VALUES ($1::uuid, $2::uuid, $3, 'active', $4, $5, $6, $7, $8::text[], $9, $10::uuid, $11::timestamp, $11::timestamp)`,
      [id, adGroupId, ad.name, c.creativeType, c.title, c.body, c.cta, c.options, c.targetUrl, assetId, createdAt],
    );
    inserted.adIds.push(id);
  }
  return inserted;
}

/** Creates an ad group (status `active`) with its ads and assets, inside the caller's transaction. */
export async function insertAdGroupWithAds(
  sql: SqlExecutor,
  store: AssetStore,
  organizationId: string,
  campaignId: string,
  group: PreparedAdGroup,
): Promise<InsertedAds & { adGroupId: string }> {
  const adGroupId = randomUUID();
  const createdAt = creationTime();
  await executeSql(
    sql,
    `INSERT INTO ad_groups (id, campaign_id, name, context_hints, status, max_bid_micros, creative_type, created_at, updated_at)
     VALUES ($1::uuid, $2::uuid, $3, $4::text[], 'active', $5::bigint, $6, $7::timestamp, $7::timestamp)`,
    [adGroupId, campaignId, group.name, group.contextHints, group.maxBidMicros === null ? null : String(group.maxBidMicros), group.creativeType, createdAt],
  );
  return { adGroupId, ...(await insertAds(sql, store, organizationId, adGroupId, group.ads)) };
}

/** The audit entries (domain/audit/log.ts) of ads just inserted by insertAds, from what was inserted. */
export function adCreationChanges(organizationId: string, adGroupId: string, ads: PreparedAd[], adIds: string[]): Change[] {
  return ads.map((ad, i) => ({
    organizationId,
    entity: { type: 'ad', id: adIds[i] },
    action: 'created',
    before: null,
    after: { adGroupId, name: ad.name, status: 'active', ...creativeColumns(ad.creative) },
  }));
}

/** The audit entries of an ad group and its ads just inserted by insertAdGroupWithAds. */
export function adGroupCreationChanges(
  organizationId: string,
  campaignId: string,
  group: PreparedAdGroup,
  inserted: { adGroupId: string; adIds: string[] },
): Change[] {
  const { name, contextHints, maxBidMicros, creativeType } = group;
  return [
    {
      organizationId,
      entity: { type: 'ad_group', id: inserted.adGroupId },
      action: 'created',
      before: null,
      after: { campaignId, name, contextHints, status: 'active', maxBidMicros, creativeType },
    },
    ...adCreationChanges(organizationId, inserted.adGroupId, group.ads, inserted.adIds),
  ];
}

/**
 * After a failed transaction: the asset rows rolled back, but bytes written by
 * createAdAsset stay in the store; drop those no asset references.
 */
export async function releaseImages(db: Db, store: AssetStore, creatives: PreparedCreative[]): Promise<void> {
  const images = creatives.flatMap((c) => (c.type === 'chat_card' && c.image ? [c.image] : []));
  await garbageCollect(db, store, images);
}
