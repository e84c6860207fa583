import type { Pool, PoolClient } from 'pg';
import { deleteAssets } from '../assets/ad-images';
import { accountDisplay } from '../ad-accounts/account';
import { DomainError } from '../errors';
import { inPgTransaction, isUniqueViolation, lockForTransaction, plainPoolOf, type Db } from '../../lib/db';
import type { CampaignCreateInput } from './campaign-schema';
import type { Actor } from '../../lib/actor';
import { recordChanges, type Change } from '../audit/log';
import {
  creationTime,
  adGroupCreationChanges,
  insertAdGroupWithAds,
  prepareAdGroup,
  prepareScope,
  releaseImages,
  type AccountContext,
  type PreparedAdGroup,
  type TreeDeps,
} from './tree';

/**
 * The campaign-creation saga's tree step and its compensation
 * (workflows/campaign-creation.ts), as plain domain work: the activities only
 * adapt its errors to Temporal's.
 */

/** "About two days in the future, the earliest launch window" (the spec's default start). */
const DEFAULT_START_DELAY_SECONDS = 2 * 24 * 60 * 60;

/** The transaction-scoped lock shared by a campaign's persist and its compensation. */
const campaignLockKey = (campaignId: string) => `campaign:${campaignId}`;

/** The saga rolled this campaign back before its tree was written: it must never be. */
export class CampaignCreationAbandoned extends Error {}

export interface NewCampaignTree {
  organizationId: string;
  adAccountId: string;
  /** Chosen by the saga, so a retry after a commit finds the campaign. */
  campaignId: string;
  body: CampaignCreateInput;
  /** Who asked for the campaign (the audit log's actor); absent in runs started before it was an input. */
  actor?: Actor;
}

/** Inserts the campaign row of a new tree: paused and in review, starting about two days out unless told. */
async function insertCampaign(client: PoolClient, { organizationId, adAccountId, campaignId, body }: NewCampaignTree, startTime: number): Promise<void> {
  const createdAt = creationTime();
  await client.query(
    `INSERT INTO campaigns (id, organization_id, ad_account_id, name, description, status, review_status, start_time, end_time,
                            lifetime_spend_limit_micros, recurring_frequency, pricing_model, target_countries, created_at, updated_at)
     VALUES ($1::uuid, $2::uuid, $3::uuid, $4, $5, 'paused', 'in_review', to_timestamp($6) AT TIME ZONE 'UTC',
             to_timestamp($7) AT TIME ZONE 'UTC', $8::bigint, $9, $10, $11::text[], $12::timestamp, $12::timestamp)`,
    [
      campaignId,
      organizationId,
      adAccountId,
      body.name,
      body.description ?? null,
      startTime,
      body.end_time ?? null,
      String(body.budget.lifetime_spend_limit_micros),
      body.recurring_frequency,
      body.pricing_model,
      body.targeting ?? [],
      createdAt,
    ],
  );
}

/** The actor of a run started before the saga carried its caller's. */
const SAGA_ACTOR: Actor = { type: 'system', id: 'campaign-creation' };

/** The audit entry of the campaign row insertCampaign writes (its fields as stored). */
function campaignCreationChange({ organizationId, adAccountId, campaignId, body }: NewCampaignTree, startTime: number): Change {
  return {
    organizationId,
    entity: { type: 'campaign', id: campaignId },
    action: 'created',
    before: null,
    after: {
      adAccountId,
      name: body.name,
      description: body.description ?? null,
      status: 'paused',
      reviewStatus: 'in_review',
      startTime: new Date(startTime * 1000),
      endTime: body.end_time == null ? null : new Date(body.end_time * 1000),
      lifetimeSpendLimitMicros: body.budget.lifetime_spend_limit_micros,
      recurringFrequency: body.recurring_frequency,
      pricingModel: body.pricing_model,
      targetCountries: body.targeting ?? [],
    },
  };
}

/** Whether the campaign is there already (a retry after a commit), and who advertises in it. */
async function treeContext(pool: Pool, tree: NewCampaignTree): Promise<{ existing: boolean; account: AccountContext }> {
  const { rows } = await pool.query<{ existing: boolean; name: string; url: string | null; domain: string | null }>(
    `SELECT EXISTS (SELECT 1 FROM campaigns WHERE id = $1::uuid) AS existing, a.name, a.url, o.domain
       FROM ad_accounts a JOIN organizations o ON o.id = a.organization_id
      WHERE a.id = $2::uuid`,
    [tree.campaignId, tree.adAccountId],
  );
  if (rows.length === 0) throw new Error(`ad account ${tree.adAccountId} not found`);
  const { name, url } = accountDisplay(rows[0], rows[0].domain);
  return { existing: rows[0].existing, account: { organizationId: tree.organizationId, accountName: name, accountUrl: url } };
}

/**
 * The campaign, its ad groups and ads, and each ad's image as its own asset,
 * in one transaction; images are downloaded and checked before it (no I/O
 * while it holds locks). Idempotent: a campaign already there is left as it
 * is. Throws the spec's errors as DomainErrors (`name_conflict` included), and
 * CampaignCreationAbandoned after the compensation has run.
 */
export async function persistCampaignTree(deps: TreeDeps, tree: NewCampaignTree): Promise<void> {
  // Plain SQL on the database's plain pool (lib/db.ts plainPoolOf): the create path's largest CPU cost was Prisma's.
  const pool = plainPoolOf(deps.db);
  const { existing, account } = await treeContext(pool, tree);
  if (existing) return;
  // One scope for the whole tree: an image named by ads of several groups is loaded once.
  const scope = prepareScope(deps, account);
  const groups: PreparedAdGroup[] = [];
  for (const [i, group] of tree.body.ad_groups.entries()) groups.push(await prepareAdGroup(scope, group, `ad_groups[${i}]`));
  try {
    await inPgTransaction(pool, async (client) => {
      // Serialized with the compensation: once it has run, this id never commits.
      await lockForTransaction(client, campaignLockKey(tree.campaignId));
      if ((await client.query('SELECT 1 FROM campaign_tombstones WHERE id = $1::uuid', [tree.campaignId])).rowCount) {
        throw new CampaignCreationAbandoned('The creation of this campaign was already rolled back');
      }
      const startTime = tree.body.start_time ?? Math.floor(Date.now() / 1000) + DEFAULT_START_DELAY_SECONDS;
      await insertCampaign(client, tree, startTime);
      const changes: Change[] = [campaignCreationChange(tree, startTime)];
      for (const group of groups) {
        const inserted = await insertAdGroupWithAds(client, deps.assets, tree.organizationId, tree.campaignId, group);
        changes.push(...adGroupCreationChanges(tree.organizationId, tree.campaignId, group, inserted));
      }
      await recordChanges(
        client,
        changes.map((change) => ({ ...change, actor: tree.actor ?? SAGA_ACTOR })),
      );
    });
  } catch (err) {
    // The transaction rolled back; bytes it wrote may now be unused.
    await releaseImages(
      deps.db,
      deps.assets,
      groups.flatMap((g) => g.ads.map((ad) => ad.creative)),
    );
    if (isUniqueViolation(err)) throw new DomainError('name_conflict', 'A campaign with that name already exists', 'name');
    throw err;
  }
}

/**
 * The compensation: removes the tree and its assets (bytes too, when unused),
 * and leaves a tombstone so a late persist never commits. Assets go first,
 * while the ads still lead to them, so a retry after a failure part-way still
 * finds what is left.
 */
export async function deleteCampaignTree(deps: Pick<TreeDeps, 'db' | 'assets'>, campaignId: string): Promise<void> {
  const { db, assets } = deps;
  await db.$transaction(async (tx) => {
    await lockForTransaction(tx, campaignLockKey(campaignId));
    await tx.campaignTombstone.upsert({ where: { id: campaignId }, create: { id: campaignId }, update: {} });
  });
  const owned = await db.asset.findMany({ where: { ad: { adGroup: { campaignId } } }, select: { id: true } });
  await deleteAssets(
    db,
    assets,
    owned.map((a) => a.id),
  );
  await db.campaign.deleteMany({ where: { id: campaignId } });
}

/** Remembers the charged deposit on the campaign. */
export async function recordCampaignDeposit(db: Db, campaignId: string, paymentIntentId: string): Promise<void> {
  await plainPoolOf(db).query('UPDATE campaigns SET deposit_payment_intent_id = $2, updated_at = now() WHERE id = $1::uuid', [campaignId, paymentIntentId]);
}
