import { Router } from 'express';
import { z } from 'zod';
import type { Client } from '@temporalio/client';
import type { Db } from '../../lib/db';
import { sessionAuth, sessionAuthOf } from '../auth/session-auth';
import { envelopeErrorHandler, sendEnvelope } from '../http/envelope';
import { defineOperation, mountOperations, type Operation } from '../../lib/http/operations';
import { listApiKeys } from '../../domain/api-keys/service';
import { mintApiKey, revokeApiKey } from '../../use-cases/api-keys/api-keys';

// `name` is optional: absent or null is the empty label.
export const createApiKeySchema = z.strictObject({
  name: z
    .string()
    .max(100)
    .nullish()
    .transform((name) => name ?? ''),
});

export const apiKeyRecordSchema = z.object({
  public_id: z.uuid(),
  name: z.string(),
  is_active: z.boolean(),
  key_preview: z.string(),
  last_used: z.string().nullable(),
  expires_at: z.string().nullable(),
  created_at: z.string(),
});
const envelope = (data: z.ZodType) => z.object({ success: z.boolean(), data, error: z.null(), meta: z.object({ request_id: z.string() }) });

const BASE = '/api/organizations/:org_public_id/api-keys';
const tag = 'API keys';

/** Key management on the platform surface (dashboard sessions), answered in its envelope. */
export function apiKeyOperations(db: Db, temporal: Client): Operation[] {
  return [
    defineOperation({
      id: 'createApiKey',
      method: 'post',
      path: `${BASE}/`,
      tag,
      auth: 'session',
      body: createApiKeySchema,
      summary: 'Mint an API key; rotates the active key, which stays valid for a 30-minute grace window',
      success: {
        status: 201,
        description: 'The new key, with its secret (shown once)',
        schema: envelope(z.object({ api_key: apiKeyRecordSchema.extend({ secret: z.string() }) })),
      },
      errors: ['string_too_long', 'invalid_value', 'rate_limit_exceeded'],
      handle: async ({ body }, _req, res) => ({ api_key: (await mintApiKey({ db, temporal }, sessionAuthOf(res).organizationId, body.name)).record }),
    }),
    defineOperation({
      id: 'listApiKeys',
      method: 'get',
      path: `${BASE}/`,
      tag,
      auth: 'session',
      summary: 'List API keys (no secrets)',
      success: { status: 200, description: 'Key records, newest first', schema: envelope(z.object({ api_keys: z.array(apiKeyRecordSchema) })) },
      handle: async (_input, _req, res) => ({ api_keys: await listApiKeys(db, sessionAuthOf(res).organizationId) }),
    }),
    defineOperation({
      id: 'revokeApiKey',
      method: 'delete',
      path: `${BASE}/:key_public_id/`,
      tag,
      auth: 'session',
      summary: 'Revoke a key at once',
      success: { status: 200, description: 'Revoked', schema: envelope(z.object({ public_id: z.uuid(), revoked: z.literal(true) })) },
      handle: async ({ params }, _req, res) => revokeApiKey({ db, temporal }, sessionAuthOf(res).organizationId, String(params.key_public_id)),
    }),
  ];
}

/** The platform surface's router: session auth, the operations in the envelope, errors in the envelope. */
export function apiKeyRoutes(db: Db, temporal: Client): Router {
  const router = Router({ mergeParams: true });
  router.use(BASE, sessionAuth(db, ['owner', 'admin']));
  router.use(mountOperations(apiKeyOperations(db, temporal), sendEnvelope));
  // Errors of this surface leave in the envelope; unknown `/api` paths get theirs in app.ts.
  router.use('/api/organizations', envelopeErrorHandler);
  return router;
}
