import { z } from 'zod';
import type { Db } from '../../lib/db';
import { defineOperation, type Operation } from '../../lib/http/operations';
import {
  findWebhookEndpoint,
  listWebhookEndpoints,
  presentWebhookEndpoint,
  WEBHOOK_STATUSES,
  webhookEndpointCreateSchema,
  webhookEndpointUpdateSchema,
} from '../../domain/webhooks/endpoints';
import { createWebhookEndpoint, deleteWebhookEndpoint, rollWebhookSecret, updateWebhookEndpoint } from '../../use-cases/webhooks/endpoints';
import { listWebhookDeliveries, presentWebhookDelivery, replayWebhookDelivery, sendTestWebhookEvent } from '../../domain/webhooks/delivery';
import { organizationOf } from '../auth/api-key-auth';
import { EXCLUSIVE_CURSORS, listPageSchema, listQuerySchema, pageRequest, presentList } from '../http/pagination';
import { listOperation, retrieveOperation } from '../http/resource-operations';

const tag = 'Webhooks';
const BASE = '/v1/webhook_endpoints';
const ONE = `${BASE}/:webhook_endpoint_id`;
const unixTime = z.int().describe('Unix seconds (UTC)');

export const webhookEndpointSchema = z.object({
  id: z.string(),
  object: z.literal('webhook_endpoint'),
  url: z.string(),
  description: z.string(),
  enabled_events: z.array(z.string()),
  status: z.enum(WEBHOOK_STATUSES),
  created_at: unixTime,
});
const withSecret = webhookEndpointSchema.extend({
  secret: z.string().describe('The signing secret (whsec_...): shown here only; deliveries carry Webhook-Signature: t=...,v1=HMAC-SHA256(secret, "t.body")'),
});
export const webhookDeliverySchema = z.object({
  id: z.string(),
  object: z.literal('webhook_delivery'),
  event_id: z.string().describe('The event id (evt_...): a replay sends the same one'),
  event_type: z.string(),
  replay: z.boolean(),
  status: z.enum(['pending', 'succeeded', 'failed']).describe('pending while it is sent or retried; failed once given up (3 days)'),
  attempts: z.int(),
  last_status_code: z.int().nullable(),
  last_error: z.string().nullable(),
  last_attempt_at: unixTime.nullable(),
  delivered_at: unixTime.nullable(),
  created_at: unixTime,
});
/** From a new endpoint to every operation on it (stateful testing follows them). */
const endpointLinks = Object.fromEntries(
  ['getWebhookEndpoint', 'updateWebhookEndpoint', 'rollWebhookEndpointSecret', 'sendWebhookTestEvent', 'listWebhookDeliveries', 'deleteWebhookEndpoint'].map(
    (operationId) => [`${operationId[0].toUpperCase()}${operationId.slice(1)}`, { operationId, parameters: { webhook_endpoint_id: '$response.body#/id' } }],
  ),
);
/** From a delivery (a test event's) to its replay. */
const deliveryLinks = {
  ReplayWebhookDelivery: {
    operationId: 'replayWebhookDelivery',
    parameters: { webhook_endpoint_id: '$request.path.webhook_endpoint_id', delivery_id: '$response.body#/id' },
  },
};

/** Webhook endpoints over /v1 (documented extension; docs/api-behaviour.md, Webhooks). */
export function webhookOperations(db: Db): Operation[] {
  return [...endpointOperations(db), ...deliveryOperations(db)];
}

/** Create, list, read, update, delete an endpoint; roll its secret. */
function endpointOperations(db: Db): Operation[] {
  return [
    defineOperation({
      id: 'createWebhookEndpoint',
      method: 'post',
      path: BASE,
      tag,
      auth: 'apiKey',
      summary: 'Create a webhook endpoint (at most 5 per organization); the answer carries its signing secret, shown once',
      body: webhookEndpointCreateSchema,
      success: { status: 201, description: 'The endpoint with its secret', schema: withSecret, links: endpointLinks },
      errors: ['invalid_value', 'required', 'string_too_long', 'webhook_endpoint_limit'],
      handle: ({ body }, _req, res) => createWebhookEndpoint(db, organizationOf(res), body),
    }),
    listOperation({
      id: 'listWebhookEndpoints',
      path: BASE,
      tag,
      summary: "The organization's webhook endpoints, newest first by default",
      filters: z.object({}),
      description: 'A page of endpoints',
      schema: listPageSchema(webhookEndpointSchema),
      errors: ['invalid_value', 'not_found'],
      load: (organizationId, _filters, page) => listWebhookEndpoints(db, organizationId, page),
      present: (row) => presentWebhookEndpoint(row),
    }),
    retrieveOperation({
      id: 'getWebhookEndpoint',
      path: ONE,
      tag,
      summary: 'Retrieve a webhook endpoint (without its secret)',
      description: 'The endpoint',
      schema: webhookEndpointSchema,
      find: (organizationId, id) => findWebhookEndpoint(db, organizationId, id),
      present: (row) => presentWebhookEndpoint(row),
    }),
    defineOperation({
      id: 'updateWebhookEndpoint',
      method: 'post',
      path: ONE,
      tag,
      auth: 'apiKey',
      summary: 'Update a webhook endpoint; only sent fields change',
      body: webhookEndpointUpdateSchema,
      success: { status: 200, description: 'The endpoint', schema: webhookEndpointSchema },
      errors: ['invalid_value', 'required', 'string_too_long', 'not_found'],
      handle: ({ params, body }, _req, res) => updateWebhookEndpoint(db, organizationOf(res), params.webhook_endpoint_id, body),
    }),
    defineOperation({
      id: 'deleteWebhookEndpoint',
      method: 'delete',
      path: ONE,
      tag,
      auth: 'apiKey',
      summary: 'Delete a webhook endpoint and its delivery log; nothing more is sent to it',
      success: {
        status: 200,
        description: 'Deleted',
        schema: z.object({ id: z.string(), object: z.literal('webhook_endpoint'), deleted: z.literal(true) }),
      },
      errors: ['not_found'],
      handle: ({ params }, _req, res) => deleteWebhookEndpoint(db, organizationOf(res), params.webhook_endpoint_id),
    }),
    defineOperation({
      id: 'rollWebhookEndpointSecret',
      method: 'post',
      path: `${ONE}/roll_secret`,
      tag,
      auth: 'apiKey',
      summary: 'Roll the signing secret: deliveries are signed with the new one, and for 24 hours with the old one too (a second v1=)',
      success: { status: 200, description: 'The endpoint with its new secret', schema: withSecret },
      errors: ['not_found'],
      handle: ({ params }, _req, res) => rollWebhookSecret(db, organizationOf(res), params.webhook_endpoint_id),
    }),
  ];
}

/** A test event, the delivery log and a replay. */
function deliveryOperations(db: Db): Operation[] {
  return [
    defineOperation({
      id: 'sendWebhookTestEvent',
      method: 'post',
      path: `${ONE}/test`,
      tag,
      auth: 'apiKey',
      summary: 'Send a webhook.test event to this endpoint (signed and retried like any other)',
      success: { status: 201, description: 'The delivery, pending', schema: webhookDeliverySchema, links: deliveryLinks },
      errors: ['not_found'],
      handle: ({ params }, _req, res) => sendTestWebhookEvent(db, organizationOf(res), params.webhook_endpoint_id),
    }),
    defineOperation({
      id: 'listWebhookDeliveries',
      method: 'get',
      path: `${ONE}/deliveries`,
      tag,
      auth: 'apiKey',
      summary: "The endpoint's delivery log: each event sent, its attempts and outcome, newest first by default",
      query: listQuerySchema(z.object({})),
      exclusiveQuery: EXCLUSIVE_CURSORS,
      success: { status: 200, description: 'A page of deliveries', schema: listPageSchema(webhookDeliverySchema) },
      errors: ['invalid_value', 'not_found'],
      handle: async ({ params, query }, _req, res) =>
        presentList(await listWebhookDeliveries(db, organizationOf(res), params.webhook_endpoint_id, pageRequest(query)), presentWebhookDelivery),
    }),
    defineOperation({
      id: 'replayWebhookDelivery',
      method: 'post',
      path: `${ONE}/deliveries/:delivery_id/replay`,
      tag,
      auth: 'apiKey',
      summary: "Send a delivery's event again (same event id), as a new delivery",
      success: { status: 201, description: 'The new delivery, pending', schema: webhookDeliverySchema },
      errors: ['not_found'],
      handle: ({ params }, _req, res) => replayWebhookDelivery(db, organizationOf(res), params.webhook_endpoint_id, params.delivery_id),
    }),
  ];
}
