/**
 * Campaign trees written straight into PostgreSQL, for tests of the routes
 * that read and change them (the create saga has its own tests).
 */
import { approveCampaignCreatives } from '../../domain/creatives/review';
import { createHash, randomBytes, randomInt } from 'node:crypto';
import sharp from 'sharp';
import type { AssetStore } from '../../lib/asset-store';
import type { Db, Prisma } from '../../lib/db';
import type { BidRecord } from '../../auction/types';

/** An organization given by its internal id or its public id (what `newOrg` returns). */
export async function organizationIdOf(db: Db, org: string | { org_public_id: string }): Promise<string> {
  const publicId = typeof org === 'string' ? org : org.org_public_id;
  const found = await db.organization.findFirst({ where: { OR: [{ publicId }, { id: publicId }] }, select: { id: true } });
  if (!found) throw new Error(`no organization ${publicId}`);
  return found.id;
}

let counter = 0;
const unique = (prefix: string) => `${prefix} ${process.pid}-${++counter}-${randomBytes(3).toString('hex')}`;

export type CampaignFixture = Partial<Omit<Prisma.CampaignUncheckedCreateInput, 'organizationId'>>;

/** A campaign of the organization (its default ad account unless `adAccountId` is given): paused and in review by default, as after create. */
export async function insertCampaign(db: Db, org: string | { org_public_id: string }, overrides: CampaignFixture = {}) {
  const organizationId = await organizationIdOf(db, org);
  const adAccountId = overrides.adAccountId ?? (await db.adAccount.findFirstOrThrow({ where: { organizationId, isDefault: true }, select: { id: true } })).id;
  return db.campaign.create({
    data: {
      name: unique('Campaign'),
      startTime: new Date(Date.now() + 2 * 86_400_000),
      lifetimeSpendLimitMicros: 5_000_000n,
      recurringFrequency: 'daily',
      pricingModel: 'cpm',
      targetCountries: [],
      ...overrides,
      organizationId,
      adAccountId,
    },
  });
}

export type AdGroupFixture = Partial<Omit<Prisma.AdGroupUncheckedCreateInput, 'campaignId'>>;

export async function insertAdGroup(db: Db, campaignId: string, overrides: AdGroupFixture = {}) {
  return db.adGroup.create({
    data: { name: unique('Ad group'), contextHints: ['running'], creativeType: 'chat_card', ...overrides, campaignId },
  });
}

export type AdFixture = Partial<Omit<Prisma.AdUncheckedCreateInput, 'adGroupId'>>;

/** A chat card unless overridden (a poll needs `creativeType`, `options` and `targetUrl`). */
export async function insertAd(db: Db, adGroupId: string, overrides: AdFixture = {}) {
  return db.ad.create({
    data: { name: unique('Ad'), creativeType: 'chat_card', title: 'Run faster', body: 'Light shoes', ...overrides, adGroupId },
  });
}

/** Campaign → ad group → ad, for tests about one of them. */
export async function insertTree(
  db: Db,
  org: string | { org_public_id: string },
  overrides: { campaign?: CampaignFixture; adGroup?: AdGroupFixture; ad?: AdFixture } = {},
) {
  const campaign = await insertCampaign(db, org, overrides.campaign);
  const adGroup = await insertAdGroup(db, campaign.id, overrides.adGroup);
  const ad = await insertAd(db, adGroup.id, overrides.ad);
  // An approved campaign's creatives were approved with it (what the review activity does).
  if (campaign.reviewStatus !== 'approved') return { campaign, adGroup, ad };
  await db.$transaction((tx) => approveCampaignCreatives(tx, campaign.id));
  return { campaign, adGroup, ad: await db.ad.findUniqueOrThrow({ where: { id: ad.id } }) };
}

/** A PNG no other test uses (random size and colour), so content-addressed bytes are never shared. */
export async function uniquePng(): Promise<{ bytes: Buffer; sha256: string }> {
  const bytes = await sharp({
    create: { width: randomInt(4, 64), height: randomInt(4, 64), channels: 3, background: { r: randomInt(256), g: randomInt(256), b: randomInt(256) } },
  })
    .png()
    .toBuffer();
  return { bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/** An upload of the organization, as POST /v1/upload leaves it: an Upload row and the bytes under its file_id. */
export async function insertUpload(db: Db, store: AssetStore, organizationId: string, bytes: Buffer): Promise<string> {
  const now = new Date();
  const fileId = `uploads/${now.getUTCFullYear()}/${String(now.getUTCMonth() + 1).padStart(2, '0')}/${randomBytes(16).toString('hex')}.png`;
  const { width, height } = await sharp(bytes).metadata();
  await store.put(fileId, bytes);
  await db.upload.create({
    data: {
      fileId,
      organizationId,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      ext: 'png',
      mime: 'image/png',
      width: width,
      height: height,
      sizeBytes: bytes.length,
    },
  });
  return fileId;
}

/** A campaign object's fields in the spec, sorted (what every campaign response carries). */
export const CAMPAIGN_FIELDS = [
  'budget',
  'created_at',
  'description',
  'end_time',
  'id',
  'name',
  'pricing_model',
  'recurring_frequency',
  'review_status',
  'start_time',
  'status',
  'targeting',
  'updated_at',
];

/** A bid row that lost, as the auction log records it (bidder `bidderId`, bid id `bidId`). */
export const lostBid = (bidderId: string, bidId: string): BidRecord => ({
  bidderId,
  bidderName: bidderId,
  kind: 'native',
  bidId,
  priceMicros: 1,
  outcome: 'lost',
  reason: null,
  detail: null,
  latencyMs: 1,
});
