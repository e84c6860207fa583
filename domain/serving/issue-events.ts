/**
 * Webhook events for delivery issues (issue 50): the delivery-issues job
 * (jobs/delivery-issues.ts) reads the diagnostics (diagnostics.ts) of the live
 * campaigns of organizations that have a webhook endpoint, compares their issues
 * with the ones last seen, and raises `campaign.delivery_issue_appeared` and
 * `campaign.delivery_issue_cleared` in the transaction that records what it saw
 * (domain/webhooks/events.ts). A campaign's first look sets what later ones
 * compare with and raises nothing.
 */
import type { Db } from '../../lib/db';
import { recordWebhookEvents, type NewWebhookEvent } from '../webhooks/events';
import { campaignDelivery, type DeliveryIssue, type DiagnosticsDeps } from './diagnostics';

/** An issue as remembered: enough to say what cleared (a type, not an interface: it is stored as JSON). */
type SeenIssue = {
  key: string;
  code: string;
  severity: string;
  message: string;
  entity: { type: string; id: string };
};

const seen = (issue: DeliveryIssue): SeenIssue => ({
  key: `${issue.code}:${issue.entity.type}:${issue.entity.id}`,
  code: issue.code,
  severity: issue.severity,
  message: issue.message,
  entity: issue.entity,
});

/** Campaigns to look at: approved, not archived, not over, of an organization with an enabled endpoint; the longest unchecked first. */
async function campaignsToCheck(db: Db, limit: number): Promise<{ id: string; organizationId: string }[]> {
  return db.$queryRaw<{ id: string; organizationId: string }[]>`
    SELECT c.id::text AS id, c.organization_id::text AS "organizationId"
      FROM campaigns c LEFT JOIN campaign_delivery_issues d ON d.campaign_id = c.id
     WHERE c.review_status = 'approved' AND c.status <> 'archived' AND c.lifecycle_state IS NULL
       AND EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.organization_id = c.organization_id AND e.status = 'enabled')
     ORDER BY d.checked_at NULLS FIRST, c.id
     LIMIT ${limit}`;
}

/** The events between what was seen and what is seen now. */
export function issueEvents(organizationId: string, campaignId: string, before: SeenIssue[], now: SeenIssue[]): NewWebhookEvent[] {
  const event = (type: 'campaign.delivery_issue_appeared' | 'campaign.delivery_issue_cleared', issue: SeenIssue): NewWebhookEvent => ({
    organizationId,
    type,
    orderingKey: campaignId,
    data: {
      entity_type: issue.entity.type,
      entity_id: issue.entity.id,
      campaign_id: campaignId,
      reason: issue.code,
      previous: type === 'campaign.delivery_issue_cleared' ? { code: issue.code, severity: issue.severity, message: issue.message } : null,
      current: type === 'campaign.delivery_issue_appeared' ? { code: issue.code, severity: issue.severity, message: issue.message } : null,
    },
  });
  const beforeKeys = new Set(before.map((i) => i.key));
  const nowKeys = new Set(now.map((i) => i.key));
  return [
    ...before.filter((i) => !nowKeys.has(i.key)).map((i) => event('campaign.delivery_issue_cleared', i)),
    ...now.filter((i) => !beforeKeys.has(i.key)).map((i) => event('campaign.delivery_issue_appeared', i)),
  ];
}

/** Looks at up to `limit` campaigns; returns how many. */
export async function checkDeliveryIssues(deps: DiagnosticsDeps, limit = 50, now = Date.now()): Promise<number> {
  const campaigns = await campaignsToCheck(deps.db, limit);
  for (const campaign of campaigns) {
    const delivery = await campaignDelivery(deps, campaign.organizationId, campaign.id, now);
    const current = delivery.issues.map(seen);
    await deps.db.$transaction(async (tx) => {
      const [previous] = await tx.$queryRaw<{ issues: SeenIssue[]; newer: boolean }[]>`
        SELECT issues, checked_at >= ${new Date(now)} AS newer FROM campaign_delivery_issues WHERE campaign_id = ${campaign.id}::uuid FOR UPDATE`;
      // Another run looked later than this one (two workers, a test beside the worker): its view stands.
      if (previous?.newer) return;
      if (previous) await recordWebhookEvents(tx, issueEvents(campaign.organizationId, campaign.id, previous.issues, current));
      await tx.campaignDeliveryIssues.upsert({
        where: { campaignId: campaign.id },
        create: { campaignId: campaign.id, issues: current, checkedAt: new Date(now) },
        update: { issues: current, checkedAt: new Date(now) },
      });
    });
  }
  return campaigns.length;
}
