/**
 * An organization's webhook endpoints (issue 50): at most MAX_WEBHOOK_ENDPOINTS,
 * https only (the test-only loopback allowance of image fetches aside), the host
 * vetted by the same SSRF guard as image fetches when the endpoint is saved and
 * again at every delivery. Each has its signing secret (shown on create and on a
 * roll only); a roll keeps the previous secret signing beside the new one for a day.
 * Every change is recorded by `record` in its own transaction: the audit log's
 * entry, bound by use-cases/webhooks/endpoints.ts (the audit log raises webhook
 * events, so importing it here would make a cycle).
 */
import { z } from 'zod';
import { config } from '../../lib/config';
import type { Db, Prisma } from '../../lib/db';
import { DomainError, invalidValue, notFound } from '../errors';
import { normalizeId } from '../ids';
import { paginate, type PageRequest } from '../pagination';
import { isLoopback } from '../uploads/address-policy';
import { vettedAddress } from '../uploads/guarded-fetch';
import { WEBHOOK_EVENT_TYPES } from './events';
import { newSigningSecret } from './signature';

export const MAX_WEBHOOK_ENDPOINTS = 5;
/** How long the secret before a roll still signs deliveries (a second `v1=`). */
export const ROLLED_SECRET_GRACE_MS = 24 * 60 * 60 * 1000;
export const WEBHOOK_STATUSES = ['enabled', 'disabled'] as const;

/** Event types an endpoint may ask for: any of them, or `*` (all, present and future). */
const SUBSCRIBABLE = WEBHOOK_EVENT_TYPES.filter((type) => type !== 'webhook.test');
const enabledEvents = z
  .array(z.enum(['*', ...SUBSCRIBABLE]))
  .min(1)
  .max(SUBSCRIBABLE.length + 1)
  .describe('The event types sent to this endpoint, or ["*"] for all (a test event is always sent)');

const url = z
  .string()
  .max(2048)
  .regex(/^https?:\/\/\S+$/, 'url must be an absolute https URL')
  .describe(
    'Where events are POSTed: https on port 443, to a host that resolves to public addresses only (checked when saved and at every delivery); at most 2048 characters',
  );

export const webhookEndpointCreateSchema = z.strictObject({
  url,
  description: z.string().max(500).optional().describe('A note for yourself, at most 500 characters'),
  enabled_events: enabledEvents.optional().describe('Default: ["*"]'),
});
export const webhookEndpointUpdateSchema = z.strictObject({
  url: url.optional(),
  description: z.string().max(500).optional(),
  enabled_events: enabledEvents.optional(),
  status: z.enum(WEBHOOK_STATUSES).optional().describe('disabled: nothing is sent (events raised meanwhile are not kept for it)'),
});
export type WebhookEndpointCreate = z.output<typeof webhookEndpointCreateSchema>;
export type WebhookEndpointUpdate = z.output<typeof webhookEndpointUpdateSchema>;

export type WebhookEndpointRow = Prisma.WebhookEndpointModel;

/** Records one change of an endpoint inside the change's transaction (the audit log: before and after, secrets masked there). */
export type RecordEndpointChange = (
  tx: Prisma.TransactionClient,
  change: { action: 'created' | 'updated' | 'deleted' | 'secret_rolled'; before: WebhookEndpointRow | null; after: WebhookEndpointRow | null },
) => Promise<unknown>;

/** The endpoint as the API shows it; `secret` only right after a create or a roll. */
export function presentWebhookEndpoint(row: WebhookEndpointRow, secret?: string) {
  return {
    id: row.id,
    object: 'webhook_endpoint' as const,
    url: row.url,
    description: row.description,
    enabled_events: row.enabledEvents,
    status: row.status as (typeof WEBHOOK_STATUSES)[number],
    created_at: Math.floor(row.createdAt.getTime() / 1000),
    ...(secret !== undefined && { secret }),
  };
}

const badUrl = (reason: string) => invalidValue('url', `url ${reason}`);

/**
 * The checks a URL passes before it is saved and before every delivery: absolute,
 * https (http and any port only for loopback under the test-only allowance), no
 * credentials, an allowed port, every address of its host public. Returns the
 * parsed URL and the vetted address to connect to.
 */
export async function vetWebhookUrl(raw: string): Promise<{ url: URL; address: string }> {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw badUrl('must be an absolute https URL');
  }
  if (parsed.username || parsed.password) throw badUrl('must not contain credentials');
  const loopbackAllowed = config.imageFetch.allowLoopback || config.imageFetch.loopbackOnly;
  if (parsed.protocol !== 'https:' && !(loopbackAllowed && parsed.protocol === 'http:')) throw badUrl('must use https');
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80));
  const opts = { allowLoopback: config.imageFetch.allowLoopback, loopbackOnly: config.imageFetch.loopbackOnly };
  const address = await vettedAddress(host, opts, badUrl);
  if (!isLoopback(address) && (parsed.protocol !== 'https:' || !config.imageFetch.allowedPorts.includes(port))) throw badUrl('must use https on port 443');
  return { url: parsed, address };
}

/** The organization's endpoint, or 404 `not_found` naming `param`. */
export async function findWebhookEndpoint(db: Db, organizationId: string, id: unknown, param = 'webhook_endpoint_id'): Promise<WebhookEndpointRow> {
  const endpointId = normalizeId(id);
  const row = endpointId ? await db.webhookEndpoint.findFirst({ where: { id: endpointId, organizationId } }) : null;
  if (!row) throw notFound('webhook endpoint', param);
  return row;
}

export async function listWebhookEndpoints(db: Db, organizationId: string, page: PageRequest) {
  return paginate(
    page,
    (id) => db.webhookEndpoint.findFirst({ where: { organizationId, id }, select: { id: true, createdAt: true } }),
    ({ where, orderBy, take }) => db.webhookEndpoint.findMany({ where: { AND: [{ organizationId }, where] }, orderBy, take }),
  );
}

/** A new endpoint and its secret; the cap is counted under the organization's row lock. */
export async function createWebhookEndpoint(db: Db, organizationId: string, input: WebhookEndpointCreate, record: RecordEndpointChange) {
  await vetWebhookUrl(input.url);
  const secret = newSigningSecret();
  const row = await db.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM organizations WHERE id = ${organizationId}::uuid FOR UPDATE`;
    if ((await tx.webhookEndpoint.count({ where: { organizationId } })) >= MAX_WEBHOOK_ENDPOINTS) {
      throw new DomainError('webhook_endpoint_limit', `An organization has at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints; delete one first`);
    }
    const created = await tx.webhookEndpoint.create({
      data: { organizationId, url: input.url, description: input.description ?? '', enabledEvents: input.enabled_events ?? ['*'], signingSecret: secret },
    });
    await record(tx, { action: 'created', before: null, after: created });
    return created;
  });
  return presentWebhookEndpoint(row, secret);
}

/** One change of an existing endpoint, in a transaction with its record: the row as it was (locked) and as it is. */
async function changeEndpoint(
  db: Db,
  organizationId: string,
  id: unknown,
  record: RecordEndpointChange,
  action: 'updated' | 'deleted' | 'secret_rolled',
  change: (tx: Prisma.TransactionClient, endpoint: WebhookEndpointRow) => Promise<WebhookEndpointRow | null>,
): Promise<{ before: WebhookEndpointRow; after: WebhookEndpointRow | null }> {
  return db.$transaction(async (tx) => {
    const endpointId = normalizeId(id);
    // Locked first: the entry's "before" is the row this change replaced, whatever runs beside it.
    const locked = endpointId
      ? await tx.$queryRaw<{ id: string }[]>`
          SELECT id::text FROM webhook_endpoints WHERE id = ${endpointId}::uuid AND organization_id = ${organizationId}::uuid FOR UPDATE`
      : [];
    if (!locked[0]) throw notFound('webhook endpoint', 'webhook_endpoint_id');
    const endpoint = await tx.webhookEndpoint.findUniqueOrThrow({ where: { id: locked[0].id } });
    const after = await change(tx, endpoint);
    await record(tx, { action, before: endpoint, after });
    return { before: endpoint, after };
  });
}

export async function updateWebhookEndpoint(db: Db, organizationId: string, id: unknown, input: WebhookEndpointUpdate, record: RecordEndpointChange) {
  if (input.url !== undefined) {
    await findWebhookEndpoint(db, organizationId, id); // 404 before a URL is vetted
    await vetWebhookUrl(input.url);
  }
  const { after } = await changeEndpoint(db, organizationId, id, record, 'updated', (tx, endpoint) =>
    tx.webhookEndpoint.update({
      where: { id: endpoint.id },
      data: {
        ...(input.url !== undefined && { url: input.url }),
        ...(input.description !== undefined && { description: input.description }),
        ...(input.enabled_events !== undefined && { enabledEvents: input.enabled_events }),
        ...(input.status !== undefined && { status: input.status }),
      },
    }),
  );
  return presentWebhookEndpoint(after!);
}

/** Deletes the endpoint with its delivery log; deliveries still retrying stop at their next attempt. */
export async function deleteWebhookEndpoint(db: Db, organizationId: string, id: unknown, record: RecordEndpointChange) {
  const { before } = await changeEndpoint(db, organizationId, id, record, 'deleted', async (tx, endpoint) => {
    await tx.webhookEndpoint.delete({ where: { id: endpoint.id } });
    return null;
  });
  return { id: before.id, object: 'webhook_endpoint' as const, deleted: true as const };
}

/** A new signing secret; the old one keeps signing (a second `v1=`) for ROLLED_SECRET_GRACE_MS, so receivers can switch without losing events. */
export async function rollWebhookSecret(db: Db, organizationId: string, id: unknown, record: RecordEndpointChange) {
  const secret = newSigningSecret();
  const { after } = await changeEndpoint(db, organizationId, id, record, 'secret_rolled', (tx, endpoint) =>
    tx.webhookEndpoint.update({
      where: { id: endpoint.id },
      data: { signingSecret: secret, previousSigningSecret: endpoint.signingSecret, previousSecretExpiresAt: new Date(Date.now() + ROLLED_SECRET_GRACE_MS) },
    }),
  );
  return presentWebhookEndpoint(after!, secret);
}

/** Every organization's endpoints (operators: `adctl webhook list`), without secrets. */
export async function listAllWebhookEndpoints(db: Db, organizationId?: string) {
  const rows = await db.webhookEndpoint.findMany({
    where: organizationId ? { organizationId } : {},
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: 1000,
    include: { organization: { select: { publicId: true } } },
  });
  return rows.map((row) => ({ ...presentWebhookEndpoint(row), org_public_id: row.organization.publicId }));
}
