/**
 * The events webhooks send (issue 50), raised by the audit log's changes
 * (domain/audit/log.ts calls `webhookEventsOf` on every change it records and
 * writes what it returns here, in the same transaction): nothing a committed
 * change raises is lost, nothing a rolled-back one raised is sent.
 */
import { randomBytes } from 'node:crypto';
import { executeSql, type SqlExecutor } from '../../lib/db';

export const WEBHOOK_EVENT_TYPES = [
  'campaign.review_approved',
  'campaign.review_rejected',
  'ad.review_approved',
  'ad.review_rejected',
  'campaign.activated',
  'campaign.paused',
  'campaign.completed',
  'campaign.budget_exhausted',
  'campaign.blocked',
  'campaign.delivery_issue_appeared',
  'campaign.delivery_issue_cleared',
  'api_key.rotated',
  'api_key.revoked',
  'webhook.test',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** What an event carries besides its envelope: the entity, its campaign, the fields that changed, and why. */
export interface WebhookEventData {
  entity_type: string;
  entity_id: string;
  /** The campaign the entity belongs to (its own id for a campaign); null for keys. */
  campaign_id: string | null;
  /** The reviewer's or the platform's reason (review rejected, completed, blocked); null otherwise. */
  reason: string | null;
  previous: Record<string, unknown> | null;
  current: Record<string, unknown> | null;
}

export interface NewWebhookEvent {
  organizationId: string;
  type: WebhookEventType;
  /** Deliveries of one key go in order: the campaign's id, else the entity's. */
  orderingKey: string;
  data: WebhookEventData;
}

/** The change as the audit log recorded it (domain/audit/log.ts RecordedChange, without importing it: no cycle). */
export interface ChangeForEvents {
  organizationId: string | null;
  entityType: string;
  entityId: string;
  campaignId?: string | null;
  action: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** The event type a change raises, or null. */
function typeOf(change: ChangeForEvents): WebhookEventType | null {
  const after = change.after ?? {};
  if (change.entityType === 'campaign') {
    switch (change.action) {
      case 'reviewed':
        return after.review_status === 'approved' ? 'campaign.review_approved' : 'campaign.review_rejected';
      case 'activated':
        return 'campaign.activated';
      case 'paused':
        return 'campaign.paused';
      case 'completed':
        return after.lifecycle_reason === 'budget_exhausted' ? 'campaign.budget_exhausted' : 'campaign.completed';
      case 'blocked':
        return 'campaign.blocked';
    }
  }
  if (change.entityType === 'ad' && change.action === 'reviewed') {
    return after.creative_review_status === 'approved' ? 'ad.review_approved' : 'ad.review_rejected';
  }
  if (change.entityType === 'api_key' && change.action === 'rotated_out') return 'api_key.rotated';
  if (change.entityType === 'api_key' && change.action === 'revoked') return 'api_key.revoked';
  return null;
}

/** The events a recorded change raises (none for most: an edit of a name is the audit log's, not a webhook's). */
export function webhookEventsOf(change: ChangeForEvents): NewWebhookEvent[] {
  const type = change.organizationId ? typeOf(change) : null;
  if (!type || !change.organizationId) return [];
  const after = change.after ?? {};
  const campaignId = change.entityType === 'campaign' ? change.entityId : (change.campaignId ?? null);
  return [
    {
      organizationId: change.organizationId,
      type,
      orderingKey: campaignId ?? `${change.entityType}:${change.entityId}`,
      data: {
        entity_type: change.entityType,
        entity_id: change.entityId,
        campaign_id: campaignId,
        reason: str(after.review_reason) ?? str(after.creative_review_reason) ?? str(after.lifecycle_reason),
        previous: change.before,
        current: change.after,
      },
    },
  ];
}

/** A new event id (`evt_` and 24 random characters): what receivers dedupe on. */
export const newEventId = () => `evt_${randomBytes(18).toString('base64url')}`;

/** The event as it is sent (and signed): Stripe's envelope. */
export function eventPayload(id: string, type: string, createdMs: number, data: WebhookEventData) {
  return { id, object: 'event', type, created: Math.floor(createdMs / 1000), data };
}

/**
 * Writes events to the outbox in the caller's transaction, in one statement;
 * only for organizations that have an endpoint (nobody would receive the rest).
 * Their deliveries are made by the dispatch job (jobs/webhook-dispatch.ts).
 */
export async function recordWebhookEvents(sql: SqlExecutor, events: NewWebhookEvent[]): Promise<void> {
  if (events.length === 0) return;
  const now = Date.now();
  const rows = events.map((event) => {
    const id = newEventId();
    return {
      id,
      organization_id: event.organizationId,
      type: event.type,
      ordering_key: event.orderingKey,
      payload: eventPayload(id, event.type, now, event.data),
    };
  });
  await executeSql(
    sql,
    `INSERT INTO webhook_events (id, organization_id, type, ordering_key, payload, created_at)
     SELECT x.id, x.organization_id, x.type, x.ordering_key, x.payload, clock_timestamp() AT TIME ZONE 'UTC'
       FROM jsonb_to_recordset($1::jsonb) AS x(id text, organization_id uuid, type text, ordering_key text, payload jsonb)
      WHERE EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.organization_id = x.organization_id)`,
    [JSON.stringify(rows)],
  );
}
