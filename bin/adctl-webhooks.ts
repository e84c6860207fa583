/**
 * adctl's webhook commands (domain/webhooks/): an operator sees every
 * organization's endpoints and their delivery logs, and can add, test, replay
 * and delete for an organization. Kept apart from bin/adctl.ts, a dispatcher.
 */
import type { Db } from '../lib/db';
import { isUuid } from '../domain/ids';
import { findOrganization } from '../domain/organizations/service';
import { WEBHOOK_EVENT_TYPES } from '../domain/webhooks/events';
import { listAllWebhookEndpoints, webhookEndpointCreateSchema } from '../domain/webhooks/endpoints';
import { createWebhookEndpoint, deleteWebhookEndpoint } from '../use-cases/webhooks/endpoints';
import { listWebhookDeliveries, presentWebhookDelivery, replayWebhookDelivery, sendTestWebhookEvent } from '../domain/webhooks/delivery';
import { parseOrThrow } from '../lib/validation';

type Options = (
  args: string[],
  spec: Record<string, { type: 'string' | 'boolean' }>,
) => { values: Record<string, string | boolean | undefined>; positionals: string[] };

/** The organization of an endpoint, by the endpoint's id. */
async function endpointOrganization(
  db: Db,
  endpointId: string | undefined,
  usage: (m: string) => Error,
): Promise<{ endpointId: string; organizationId: string }> {
  if (!endpointId || !isUuid(endpointId)) throw usage('an endpoint id (a UUID) is required');
  const endpoint = await db.webhookEndpoint.findUnique({ where: { id: endpointId.toLowerCase() }, select: { id: true, organizationId: true } });
  if (!endpoint) throw new Error(`no such webhook endpoint: ${endpointId}`);
  return { endpointId: endpoint.id, organizationId: endpoint.organizationId };
}

export async function runWebhookCommand(db: Db, command: string, args: string[], options: Options, usage: (m: string) => Error): Promise<object> {
  const { values, positionals } = options(args, {
    org: { type: 'string' },
    url: { type: 'string' },
    events: { type: 'string' },
    description: { type: 'string' },
  });
  const org = async () => {
    const publicId = typeof values.org === 'string' ? values.org : undefined;
    if (!publicId) throw usage('--org is required');
    const found = isUuid(publicId) ? await findOrganization(db, publicId.toLowerCase()) : null;
    if (!found) throw new Error(`no such organization: ${publicId}`);
    return found.id;
  };
  switch (command) {
    case 'webhook list':
      return { webhook_endpoints: await listAllWebhookEndpoints(db, values.org === undefined ? undefined : await org()) };
    case 'webhook create': {
      const events = typeof values.events === 'string' ? values.events.split(',').map((e) => e.trim()) : undefined;
      if (events?.some((e) => e !== '*' && !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(e))) {
        throw usage(`--events: a comma-separated list of ${WEBHOOK_EVENT_TYPES.join(', ')}, or *`);
      }
      const input = parseOrThrow(webhookEndpointCreateSchema, { url: values.url, description: values.description, enabled_events: events });
      return createWebhookEndpoint(db, await org(), input);
    }
    case 'webhook delete': {
      const { endpointId, organizationId } = await endpointOrganization(db, positionals[0], usage);
      return deleteWebhookEndpoint(db, organizationId, endpointId);
    }
    case 'webhook test': {
      const { endpointId, organizationId } = await endpointOrganization(db, positionals[0], usage);
      return sendTestWebhookEvent(db, organizationId, endpointId);
    }
    case 'webhook deliveries': {
      const { endpointId, organizationId } = await endpointOrganization(db, positionals[0], usage);
      const page = await listWebhookDeliveries(db, organizationId, endpointId, { limit: 100, order: 'desc' });
      return { deliveries: page.rows.map(presentWebhookDelivery), has_more: page.hasMore };
    }
    case 'webhook replay': {
      const { endpointId, organizationId } = await endpointOrganization(db, positionals[0], usage);
      if (!positionals[1] || !isUuid(positionals[1])) throw usage('a delivery id (a UUID) is required after the endpoint id');
      return replayWebhookDelivery(db, organizationId, endpointId, positionals[1]);
    }
  }
  throw usage(`unknown command: ${command}`);
}
