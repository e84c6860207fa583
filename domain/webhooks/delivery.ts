/**
 * Webhook deliveries (issue 50): the outbox's events become one delivery per
 * subscribed endpoint (`dispatchWebhookEvents`, the dispatch job), each sent by
 * its endpoint's delivery workflow for its ordering key (workflows/webhook-delivery.ts:
 * one at a time, in order, retried with backoff for 3 days), one attempt per
 * `attemptWebhookDelivery`. The endpoint's delivery log is these rows; a replay
 * is a new delivery of the same event (same event id: receivers dedupe on it).
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Pool, PoolClient } from 'pg';
import type { Db, Prisma } from '../../lib/db';
import { notFound } from '../errors';
import { normalizeId } from '../ids';
import { paginate, type PageRequest } from '../pagination';
import { pinnedLookup } from '../uploads/guarded-fetch';
import { findWebhookEndpoint, vetWebhookUrl } from './endpoints';
import { eventPayload, newEventId } from './events';
import { SIGNATURE_HEADER, signatureHeader } from './signature';

/** One attempt's budget: connect, send, and the receiver's answer. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** How much of a refusal's body the delivery log keeps. */
const ERROR_TEXT_MAX = 300;

/** The dispatch job's advisory lock: one dispatcher at a time, so deliveries reach their workflows in order. */
export const WEBHOOK_DISPATCH_LOCK = 0x77686b64; // 'whkd'

export interface PendingDelivery {
  id: string;
  endpointId: string;
  orderingKey: string;
}

/**
 * Makes the deliveries of up to `limit` undispatched events (one per enabled
 * endpoint of the event's organization that asked for its type) and marks the
 * events dispatched, in one transaction; a repeat adds nothing (one first
 * delivery per endpoint and event). Returns how many events it handled.
 */
export async function dispatchWebhookEvents(pool: Pool | PoolClient, limit = 200): Promise<number> {
  const { rows } = await pool.query<{ events: string }>(
    `WITH claimed AS (
       SELECT id, seq, organization_id, type, ordering_key FROM webhook_events
        WHERE dispatched_at IS NULL ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED
     ), made AS (
       INSERT INTO webhook_deliveries (endpoint_id, event_id, ordering_key)
       SELECT e.id, c.id, c.ordering_key FROM claimed c
         JOIN webhook_endpoints e ON e.organization_id = c.organization_id AND e.status = 'enabled'
                                 AND (c.type = ANY (e.enabled_events) OR '*' = ANY (e.enabled_events))
        ORDER BY c.seq, e.id
       ON CONFLICT DO NOTHING
     ), marked AS (
       UPDATE webhook_events SET dispatched_at = clock_timestamp() AT TIME ZONE 'UTC' WHERE id IN (SELECT id FROM claimed) RETURNING 1
     )
     SELECT count(*)::text AS events FROM marked`,
    [limit],
  );
  return Number(rows[0].events);
}

/** Deliveries no workflow has been told of yet, oldest first (first deliveries, replays, test events). */
export async function unsignaledDeliveries(pool: Pool | PoolClient, limit = 500): Promise<PendingDelivery[]> {
  const { rows } = await pool.query<{ id: string; endpoint_id: string; ordering_key: string }>(
    'SELECT id, endpoint_id, ordering_key FROM webhook_deliveries WHERE signaled_at IS NULL ORDER BY seq LIMIT $1',
    [limit],
  );
  return rows.map((r) => ({ id: r.id, endpointId: r.endpoint_id, orderingKey: r.ordering_key }));
}

export async function markSignaled(pool: Pool | PoolClient, ids: string[]): Promise<void> {
  if (ids.length) await pool.query(`UPDATE webhook_deliveries SET signaled_at = clock_timestamp() AT TIME ZONE 'UTC' WHERE id = ANY ($1::uuid[])`, [ids]);
}

export type AttemptOutcome = 'succeeded' | 'failed' | 'skipped';

/** Sent, but the receiver did not take it: the workflow retries it. */
export class WebhookAttemptFailed extends Error {}

/**
 * One attempt at a delivery: signed with the endpoint's secret (and its
 * previous one while that still signs), sent through the SSRF guard, recorded
 * in the delivery log. `skipped` when there is nothing to do (already
 * delivered, endpoint deleted or disabled); throws WebhookAttemptFailed on a
 * refusal or a network failure, after recording it.
 */
export async function attemptWebhookDelivery(db: Db, deliveryId: string, now = Date.now()): Promise<AttemptOutcome> {
  const delivery = await db.webhookDelivery.findUnique({ where: { id: deliveryId }, include: { endpoint: true, event: { select: { payload: true } } } });
  if (!delivery || delivery.status !== 'pending') return 'skipped';
  if (delivery.endpoint.status !== 'enabled') {
    await db.webhookDelivery.updateMany({ where: { id: delivery.id, status: 'pending' }, data: { status: 'failed', lastError: 'the endpoint is disabled' } });
    return 'skipped';
  }
  const { endpoint } = delivery;
  const body = JSON.stringify(delivery.event.payload);
  const timestamp = Math.floor(now / 1000);
  const secrets = [endpoint.signingSecret];
  if (endpoint.previousSigningSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt.getTime() > now) {
    secrets.push(endpoint.previousSigningSecret);
  }
  const eventId = (delivery.event.payload as { id: string }).id;
  let status: number | null = null;
  let error: string | null = null;
  try {
    const target = await vetWebhookUrl(endpoint.url);
    ({ status, text: error } = await post(target, body, {
      'content-type': 'application/json',
      'user-agent': 'ChatAds-Webhooks/1.0',
      'webhook-id': eventId,
      [SIGNATURE_HEADER.toLowerCase()]: signatureHeader(secrets, timestamp, body),
    }));
  } catch (err) {
    error = (err as Error).message;
  }
  const ok = status !== null && status >= 200 && status < 300;
  await db.webhookDelivery.update({
    where: { id: delivery.id },
    data: {
      attempts: { increment: 1 },
      lastStatusCode: status,
      lastError: ok ? null : (error || `HTTP ${status}`).slice(0, ERROR_TEXT_MAX),
      lastAttemptAt: new Date(now),
      ...(ok && { status: 'succeeded', deliveredAt: new Date(now) }),
    },
  });
  if (!ok) throw new WebhookAttemptFailed(status === null ? `delivery failed: ${error}` : `the endpoint answered HTTP ${status}`);
  return 'succeeded';
}

/** After its last retry: the delivery is given up (`failed`), and the next one of its key goes. */
export async function giveUpWebhookDelivery(db: Db, deliveryId: string): Promise<void> {
  await db.webhookDelivery.updateMany({ where: { id: deliveryId, status: 'pending' }, data: { status: 'failed' } });
}

/** POSTs `body` to the vetted address (pinned: no second lookup), no redirects followed; the status and, on a refusal, the start of the answer. */
function post(target: { url: URL; address: string }, body: string, headers: Record<string, string>): Promise<{ status: number; text: string | null }> {
  const { url, address } = target;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return new Promise((resolve, reject) => {
    const request = url.protocol === 'https:' ? https.request : http.request;
    const req = request(
      {
        protocol: url.protocol,
        hostname: host,
        port: url.port || undefined,
        path: url.pathname + url.search,
        method: 'POST',
        headers: { ...headers, 'content-length': Buffer.byteLength(body) },
        agent: false,
        timeout: DELIVERY_TIMEOUT_MS,
        ...(url.protocol === 'https:' && !net.isIP(host) ? { servername: host } : {}),
        lookup: pinnedLookup(address),
      },
      (res) => {
        const status = res.statusCode ?? 0;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (text.length < ERROR_TEXT_MAX) text += chunk;
        });
        res.on('end', () => resolve({ status, text: status >= 200 && status < 300 ? null : text.slice(0, ERROR_TEXT_MAX) || null }));
        res.on('error', reject);
      },
    );
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${DELIVERY_TIMEOUT_MS} ms`)), DELIVERY_TIMEOUT_MS);
    req.on('close', () => clearTimeout(timer));
    req.on('timeout', () => req.destroy(new Error(`no answer within ${DELIVERY_TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

type DeliveryRow = Prisma.WebhookDeliveryGetPayload<{ include: { event: { select: { type: true } } } }>;

/** A delivery as the endpoint's log shows it. */
export function presentWebhookDelivery(row: DeliveryRow) {
  const seconds = (d: Date | null) => (d ? Math.floor(d.getTime() / 1000) : null);
  return {
    id: row.id,
    object: 'webhook_delivery' as const,
    event_id: row.eventId,
    event_type: row.event.type,
    replay: row.replay,
    status: row.status as 'pending' | 'succeeded' | 'failed',
    attempts: row.attempts,
    last_status_code: row.lastStatusCode,
    last_error: row.lastError,
    last_attempt_at: seconds(row.lastAttemptAt),
    delivered_at: seconds(row.deliveredAt),
    created_at: seconds(row.createdAt)!,
  };
}

const withType = { event: { select: { type: true } } } as const;

/** The endpoint's delivery log, newest first by default. */
export async function listWebhookDeliveries(db: Db, organizationId: string, endpointId: unknown, page: PageRequest) {
  const endpoint = await findWebhookEndpoint(db, organizationId, endpointId);
  const scope = { endpointId: endpoint.id };
  return paginate(
    page,
    (id) => db.webhookDelivery.findFirst({ where: { ...scope, id }, select: { id: true, createdAt: true } }),
    ({ where, orderBy, take }) => db.webhookDelivery.findMany({ where: { AND: [scope, where] }, orderBy, take, include: withType }),
  );
}

/** Sends a delivery's event again, as a new delivery of the same event id (whatever the first one's outcome). */
export async function replayWebhookDelivery(db: Db, organizationId: string, endpointId: unknown, deliveryId: unknown) {
  const endpoint = await findWebhookEndpoint(db, organizationId, endpointId);
  const id = normalizeId(deliveryId);
  const original = id ? await db.webhookDelivery.findFirst({ where: { id, endpointId: endpoint.id } }) : null;
  if (!original) throw notFound('webhook delivery', 'delivery_id');
  const replay = await db.webhookDelivery.create({
    data: { endpointId: endpoint.id, eventId: original.eventId, orderingKey: original.orderingKey, replay: true },
    include: withType,
  });
  return presentWebhookDelivery(replay);
}

/** A `webhook.test` event sent to this endpoint alone (on an ordering key of its own: it never waits behind a campaign's retries). */
export async function sendTestWebhookEvent(db: Db, organizationId: string, endpointId: unknown) {
  const endpoint = await findWebhookEndpoint(db, organizationId, endpointId);
  const eventId = newEventId();
  const now = new Date();
  const payload = eventPayload(eventId, 'webhook.test', now.getTime(), {
    entity_type: 'webhook_endpoint',
    entity_id: endpoint.id,
    campaign_id: null,
    reason: null,
    previous: null,
    current: null,
  });
  const delivery = await db.$transaction(async (tx) => {
    await tx.webhookEvent.create({
      // The payload is JSON by construction (eventPayload): its type only lacks the index signature Prisma wants.
      data: {
        id: eventId,
        organizationId,
        type: 'webhook.test',
        orderingKey: `test:${endpoint.id}`,
        payload: payload as unknown as Prisma.InputJsonObject,
        createdAt: now,
        dispatchedAt: now,
      },
    });
    return tx.webhookDelivery.create({ data: { endpointId: endpoint.id, eventId, orderingKey: `test:${endpoint.id}` }, include: withType });
  });
  return presentWebhookDelivery(delivery);
}

/** How long events and their delivery logs are kept (once nothing of theirs is still being retried). */
export const WEBHOOK_LOG_DAYS = 30;

/** Deletes events older than `days` with no delivery still pending, their deliveries with them (the retention job). */
export async function pruneWebhookEvents(db: Db, days = WEBHOOK_LOG_DAYS, now = Date.now()): Promise<number> {
  return db.$executeRaw`
    DELETE FROM webhook_events e
     WHERE e.created_at < ${new Date(now - days * 86_400_000)}
       AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status = 'pending')`;
}
