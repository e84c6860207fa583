import { recordChange } from '../../domain/audit/log';
import * as endpoints from '../../domain/webhooks/endpoints';
import type { Db } from '../../lib/db';

/**
 * An organization's webhook endpoints changed over /v1 and by `adctl webhook`
 * (domain/webhooks/endpoints.ts), each change in the audit log like any other
 * entity's, in the change's own transaction: who (the actor bound around the
 * caller), created, updated, deleted or secret_rolled, the fields before and after
 * (the signing secrets masked). Bound here: the audit log imports the webhooks'
 * events, so the webhooks cannot import it.
 */
const audited =
  (organizationId: string): endpoints.RecordEndpointChange =>
  (tx, { action, before, after }) =>
    recordChange(tx, { organizationId, entity: { type: 'webhook_endpoint', id: (after ?? before)!.id }, action, before, after });

export const createWebhookEndpoint = (db: Db, organizationId: string, input: endpoints.WebhookEndpointCreate) =>
  endpoints.createWebhookEndpoint(db, organizationId, input, audited(organizationId));

export const updateWebhookEndpoint = (db: Db, organizationId: string, id: unknown, input: endpoints.WebhookEndpointUpdate) =>
  endpoints.updateWebhookEndpoint(db, organizationId, id, input, audited(organizationId));

export const deleteWebhookEndpoint = (db: Db, organizationId: string, id: unknown) =>
  endpoints.deleteWebhookEndpoint(db, organizationId, id, audited(organizationId));

export const rollWebhookSecret = (db: Db, organizationId: string, id: unknown) => endpoints.rollWebhookSecret(db, organizationId, id, audited(organizationId));
