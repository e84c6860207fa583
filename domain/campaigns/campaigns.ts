import { isUniqueViolation, plainPoolOf, type Db } from '../../lib/db';
import { DomainError, notFound } from '../errors';
import { normalizeId } from '../ids';
import { paginate, type PageRequest } from '../pagination';
import { accountDisplay } from '../ad-accounts/account';
import type { CampaignRow } from './rows';
import type { CampaignUpdateInput } from './campaign-schema';
import type { AccountContext } from './tree';
import { isLifecycleOver } from './lifecycle';
import { recordChange } from '../audit/log';

/** A campaign row as the plain pool reads it: timestamps as instants (the columns hold UTC), the spend limit as text. */
interface RawCampaign {
  id: string;
  organization_id: string;
  ad_account_id: string;
  name: string;
  description: string | null;
  status: string;
  review_status: string;
  review_reason: string | null;
  start_time: Date;
  end_time: Date | null;
  lifetime_spend_limit_micros: string;
  recurring_frequency: string;
  pricing_model: string;
  target_countries: string[];
  deposit_payment_intent_id: string | null;
  lifecycle_state: string | null;
  lifecycle_reason: string | null;
  lifecycle_changed_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const CAMPAIGN_COLUMNS = `id, organization_id, ad_account_id, name, description, status, review_status, review_reason,
  start_time AT TIME ZONE 'UTC' AS start_time, end_time AT TIME ZONE 'UTC' AS end_time, lifetime_spend_limit_micros::text,
  recurring_frequency, pricing_model, target_countries, deposit_payment_intent_id, lifecycle_state, lifecycle_reason,
  lifecycle_changed_at AT TIME ZONE 'UTC' AS lifecycle_changed_at, created_at AT TIME ZONE 'UTC' AS created_at, updated_at AT TIME ZONE 'UTC' AS updated_at`;

const campaignRowOf = (r: RawCampaign): CampaignRow => ({
  id: r.id,
  organizationId: r.organization_id,
  adAccountId: r.ad_account_id,
  name: r.name,
  description: r.description,
  status: r.status,
  reviewStatus: r.review_status,
  reviewReason: r.review_reason,
  startTime: r.start_time,
  endTime: r.end_time,
  lifetimeSpendLimitMicros: BigInt(r.lifetime_spend_limit_micros),
  recurringFrequency: r.recurring_frequency,
  pricingModel: r.pricing_model,
  targetCountries: r.target_countries,
  depositPaymentIntentId: r.deposit_payment_intent_id,
  lifecycleState: r.lifecycle_state,
  lifecycleReason: r.lifecycle_reason,
  lifecycleChangedAt: r.lifecycle_changed_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/**
 * The organization's campaign, or 404 `not_found` with `param`. On the plain
 * pool (lib/db.ts plainPoolOf): every campaign read and create answers with it.
 */
export async function findCampaign(db: Db, organizationId: string, id: unknown, param = 'campaign_id'): Promise<CampaignRow> {
  const campaignId = normalizeId(id);
  const { rows } = campaignId
    ? await plainPoolOf(db).query<RawCampaign>(`SELECT ${CAMPAIGN_COLUMNS} FROM campaigns WHERE id = $1::uuid AND organization_id = $2::uuid`, [
        campaignId,
        organizationId,
      ])
    : { rows: [] };
  if (rows.length === 0) throw notFound('campaign', param);
  return campaignRowOf(rows[0]);
}

/** What the creative generator knows about the campaign's advertiser. */
export async function accountContextOf(db: Db, campaign: Pick<CampaignRow, 'organizationId' | 'adAccountId'>): Promise<AccountContext> {
  const account = await db.adAccount.findUniqueOrThrow({
    where: { id: campaign.adAccountId },
    include: { organization: { select: { domain: true } } },
  });
  const { name, url } = accountDisplay(account, account.organization.domain);
  return { organizationId: campaign.organizationId, accountName: name, accountUrl: url };
}

/** An unknown (or another organization's) ad account filter is 404, as on create. */
export async function listCampaigns(db: Db, organizationId: string, adAccountId: string | undefined, page: PageRequest) {
  const scope: { organizationId: string; adAccountId?: string } = { organizationId };
  if (adAccountId !== undefined) {
    const accountId = normalizeId(adAccountId);
    const account = accountId ? await db.adAccount.findFirst({ where: { id: accountId, organizationId }, select: { id: true } }) : null;
    if (!account) throw notFound('ad account', 'ad_account_id');
    scope.adAccountId = account.id;
  }
  return paginate(
    page,
    (id) => db.campaign.findFirst({ where: { ...scope, id }, select: { id: true, createdAt: true } }),
    ({ where, orderBy, take }) => db.campaign.findMany({ where: { AND: [scope, where] }, orderBy, take }),
  );
}

/** Only sent fields change; a name taken by another campaign is 409 `name_conflict`. */
export async function updateCampaign(db: Db, organizationId: string, id: unknown, input: CampaignUpdateInput): Promise<CampaignRow> {
  const campaign = await findCampaign(db, organizationId, id);
  const data = {
    ...(input.name !== undefined && { name: input.name }),
    ...(input.description !== undefined && { description: input.description }),
    ...(input.budget && { lifetimeSpendLimitMicros: BigInt(input.budget.lifetime_spend_limit_micros) }),
    ...(input.targeting && { targetCountries: input.targeting }),
    ...(input.start_time !== undefined && { startTime: new Date(input.start_time * 1000) }),
    ...(input.end_time !== undefined && { endTime: input.end_time === null ? null : new Date(input.end_time * 1000) }),
  };
  if (Object.keys(data).length === 0) return campaign;
  try {
    return await db.$transaction(async (tx) => {
      // Read under the row lock, so the audit entry's before is what this update replaced.
      await tx.$queryRaw`SELECT id FROM campaigns WHERE id = ${campaign.id}::uuid FOR UPDATE`;
      const before = await tx.campaign.findUniqueOrThrow({ where: { id: campaign.id } });
      const after = await tx.campaign.update({ where: { id: campaign.id }, data });
      await recordChange(tx, { organizationId, entity: { type: 'campaign', id: campaign.id }, action: 'updated', before, after });
      return after;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new DomainError('name_conflict', 'A campaign with that name already exists', 'name');
    throw err;
  }
}

export type CampaignAction = 'activate' | 'pause' | 'archive';
/** A status action as the audit log names what it did. */
export const ACTION_PAST = { activate: 'activated', pause: 'paused', archive: 'archived' } as const;

const refuse = (code: string, message: string) => new DomainError(code, message);

/**
 * The spec's campaign state table: the status an action leads to, or its error.
 * A completed or blocked campaign (domain/campaigns/lifecycle.ts) reads as
 * paused and never serves again: activate is `campaign_terminal`, pause
 * `campaign_not_running`; archiving it is still allowed.
 */
export function nextCampaignStatus(campaign: Pick<CampaignRow, 'status' | 'reviewStatus' | 'lifecycleState'>, action: CampaignAction): string | DomainError {
  switch (action) {
    case 'activate':
      if (isLifecycleOver(campaign)) return refuse('campaign_terminal', 'A completed or blocked campaign cannot be reactivated');
      if (campaign.reviewStatus !== 'approved') return refuse('campaign_not_approved', 'The campaign has not been approved yet');
      // Not in the table: archiving is permanent.
      if (campaign.status === 'archived') return refuse('campaign_terminal', 'An archived campaign cannot be reactivated');
      return 'active';
    case 'pause':
      return campaign.status === 'active' && !isLifecycleOver(campaign) ? 'paused' : refuse('campaign_not_running', 'Only an active campaign can be paused');
    case 'archive':
      return campaign.status === 'active' || campaign.status === 'paused'
        ? 'archived'
        : refuse('cannot_archive', 'Only an active or paused campaign can be archived');
  }
}

/**
 * Applies a status action. The write is conditional on the state it was
 * decided from, so a concurrent action or review never gets overwritten; on a
 * lost race the decision is simply taken again.
 */
export async function applyCampaignAction(db: Db, organizationId: string, id: unknown, action: CampaignAction): Promise<CampaignRow> {
  for (;;) {
    const campaign = await findCampaign(db, organizationId, id);
    const next = nextCampaignStatus(campaign, action);
    if (next instanceof DomainError) throw next;
    if (next === campaign.status) return campaign; // activate while active: a no-op
    const applied = await db.$transaction(async (tx) => {
      const { count } = await tx.campaign.updateMany({
        where: { id: campaign.id, status: campaign.status, reviewStatus: campaign.reviewStatus, lifecycleState: campaign.lifecycleState },
        data: { status: next },
      });
      if (count === 1) {
        // The condition above makes `campaign.status` the status this replaced.
        await recordChange(tx, {
          organizationId,
          entity: { type: 'campaign', id: campaign.id },
          action: ACTION_PAST[action],
          before: { status: campaign.status },
          after: { status: next },
        });
      }
      return count === 1;
    });
    if (applied) return findCampaign(db, organizationId, campaign.id);
  }
}

/**
 * Why the parent campaign blocks status changes of its ad groups, or null.
 * Terminal (never serving again: archived, rejected, ended, completed or
 * blocked) is checked before pending review, since it is the final answer.
 */
export function adGroupStatusLock(campaign: Pick<CampaignRow, 'status' | 'reviewStatus' | 'endTime' | 'lifecycleState'>, now = new Date()): DomainError | null {
  const ended = campaign.endTime !== null && campaign.endTime <= now;
  if (campaign.status === 'archived' || campaign.reviewStatus === 'rejected' || ended || isLifecycleOver(campaign)) {
    return refuse('campaign_terminal', 'The parent campaign is archived, rejected, completed or blocked, or has ended');
  }
  if (campaign.reviewStatus === 'in_review') {
    return refuse('campaign_pending_status_locked', 'The parent campaign is pending approval');
  }
  return null;
}
