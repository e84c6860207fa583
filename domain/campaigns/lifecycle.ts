import type { Actor } from '../../lib/actor';
import type { Db, Prisma } from '../../lib/db';
import { recordChange } from '../audit/log';
import { isBudgetExhausted } from '../delivery/spend';
import type { CampaignRow } from './rows';

/**
 * A campaign's internal end of life, beside the advertiser's `status` and the
 * service's `review_status`: `completed` when its end_time came or its budget
 * ran out (the lifecycle workflow), `blocked` when a reviewer stopped it
 * (`adctl review block`). Either way it never serves again. The spec's
 * status enum has neither, so /v1 reads such a campaign back as `paused`
 * (or `archived`, once the advertiser archives it).
 */
export type LifecycleState = 'completed' | 'blocked';
export type CompletionReason = 'ended' | 'budget_exhausted';

type LifecycleFields = Pick<CampaignRow, 'status' | 'lifecycleState'>;

export const isLifecycleOver = (campaign: Pick<CampaignRow, 'lifecycleState'>) => campaign.lifecycleState !== null;

/** The status /v1 shows: a completed or blocked campaign that is not archived reads `paused`. */
export function visibleCampaignStatus(campaign: LifecycleFields): string {
  return isLifecycleOver(campaign) && campaign.status !== 'archived' ? 'paused' : campaign.status;
}

/** What the lifecycle workflow needs to know about its campaign. */
export interface LifecycleSnapshot {
  /** ISO 8601 */
  startTime: string;
  /** ISO 8601; null = runs until its budget is spent */
  endTime: string | null;
  /** Why the workflow has nothing left to do, or null while the campaign may still serve. */
  over: LifecycleState | 'archived' | 'deleted' | null;
  reason: string | null;
}

export async function lifecycleSnapshot(db: Db, campaignId: string): Promise<LifecycleSnapshot> {
  const campaign = await db.campaign.findUnique({ where: { id: campaignId } });
  if (!campaign) return { startTime: new Date(0).toISOString(), endTime: null, over: 'deleted', reason: null };
  return {
    startTime: campaign.startTime.toISOString(),
    endTime: campaign.endTime?.toISOString() ?? null,
    over: (campaign.lifecycleState as LifecycleState | null) ?? (campaign.status === 'archived' ? 'archived' : null),
    reason: campaign.lifecycleReason,
  };
}

/**
 * Marks a live campaign completed. Conditional, so it never overwrites a
 * block, an earlier completion or an archive (the first end wins).
 */
async function complete(db: Db, campaignId: string, reason: CompletionReason): Promise<void> {
  await db.$transaction(async (tx) => {
    const { count } = await tx.campaign.updateMany({
      where: { id: campaignId, lifecycleState: null, status: { not: 'archived' } },
      data: { lifecycleState: 'completed', lifecycleReason: reason, lifecycleChangedAt: new Date() },
    });
    if (count === 1) await recordLifecycleChange(tx, campaignId, 'completed', null, { lifecycleState: 'completed', lifecycleReason: reason });
  });
}

/** The audit entry of a completion or block (the workflow's, or a reviewer's through the ambient actor). */
async function recordLifecycleChange(
  tx: Prisma.TransactionClient,
  campaignId: string,
  action: 'completed' | 'blocked',
  before: Pick<CampaignRow, 'lifecycleState' | 'lifecycleReason'> | null,
  after: { lifecycleState: LifecycleState; lifecycleReason: string },
): Promise<void> {
  const { organizationId } = await tx.campaign.findUniqueOrThrow({ where: { id: campaignId }, select: { organizationId: true } });
  await recordChange(tx, {
    organizationId,
    entity: { type: 'campaign', id: campaignId },
    action,
    before: before ?? { lifecycleState: null, lifecycleReason: null },
    after,
    ...(action === 'completed' && { actor: LIFECYCLE_ACTOR }),
  });
}

/** The lifecycle workflow, as the audit log names it. */
const LIFECYCLE_ACTOR: Actor = { type: 'system', id: 'campaign-lifecycle' };

/** Completes the campaign if its (current) end_time is at or before `asOf`; the snapshot after. */
export async function completeIfEnded(db: Db, campaignId: string, asOf: Date): Promise<LifecycleSnapshot> {
  const ended = await db.campaign.count({ where: { id: campaignId, endTime: { lte: asOf } } });
  if (ended) await complete(db, campaignId, 'ended');
  return lifecycleSnapshot(db, campaignId);
}

/**
 * Completes the campaign if the shared spend store says its budget is spent.
 * Re-checked here because a budget raised since the exhaustion means it keeps running.
 */
export async function completeIfBudgetExhausted(db: Db, campaignId: string): Promise<LifecycleSnapshot> {
  if (await isBudgetExhausted(db, campaignId)) await complete(db, campaignId, 'budget_exhausted');
  return lifecycleSnapshot(db, campaignId);
}

/**
 * A reviewer's block: takes effect at once, in any state (in review, live,
 * completed or archived), and is final; blocking again keeps the first reason.
 * The auction's index drops the campaign on the update's notification.
 */
export async function recordCampaignBlock(db: Db, campaignId: string, reason: string): Promise<CampaignRow> {
  return db.$transaction(async (tx) => {
    const before = await tx.campaign.findUnique({ where: { id: campaignId }, select: { lifecycleState: true, lifecycleReason: true } });
    const { count } = await tx.campaign.updateMany({
      where: { id: campaignId, OR: [{ lifecycleState: null }, { lifecycleState: { not: 'blocked' } }] },
      data: { lifecycleState: 'blocked', lifecycleReason: reason, lifecycleChangedAt: new Date() },
    });
    if (count === 1) await recordLifecycleChange(tx, campaignId, 'blocked', before, { lifecycleState: 'blocked', lifecycleReason: reason });
    return tx.campaign.findUniqueOrThrow({ where: { id: campaignId } });
  });
}
