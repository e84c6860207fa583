import type { IncomingMessage } from 'node:http';
import type { RequestHandler, Response } from 'express';
import type { Db } from '../../lib/db';
import type { Actor } from '../../lib/actor';
import { API_KEY_PATTERN } from '../../lib/secrets';
import { DomainError } from '../../domain/errors';
import { authenticateApiKey, type ApiKeyAuth } from '../../domain/api-keys/authenticate';

export type { ApiKeyAuth };

export function apiKeyAuthOf(res: Response): ApiKeyAuth {
  return res.locals.apiKeyAuth as ApiKeyAuth;
}

/** The calling organization's id. */
export const organizationOf = (res: Response): string => apiKeyAuthOf(res).organizationId;

const authRequired = () => new DomainError('auth_required', 'No API key provided. Send Authorization: Bearer <API_KEY>.');
/** One error for every rejected key, so the response never tells why. */
const invalidApiKey = () => new DomainError('invalid_api_key', 'Invalid API key provided');

export function bearerToken(req: Pick<IncomingMessage, 'headers'>): string | null | undefined {
  const header = req.headers.authorization;
  if (header === undefined) return undefined;
  const match = /^Bearer ([^\s]+)$/.exec(header);
  return match ? match[1] : null;
}

/** The request's key, checked (header parsing here; the lookup, the validity rule and last_used in domain/api-keys/authenticate.ts). */
export async function authenticateBearer(db: Db, req: Pick<IncomingMessage, 'headers'>): Promise<ApiKeyAuth> {
  const token = bearerToken(req);
  if (token === undefined) throw authRequired();
  // Malformed headers and non-`ak_` tokens (dashboard sessions) never reach a lookup.
  if (token === null || !API_KEY_PATTERN.test(token)) throw invalidApiKey();
  const auth = await authenticateApiKey(db, token);
  if (!auth) throw invalidApiKey();
  return auth;
}

export function apiKeyAuth(db: Db): RequestHandler {
  return async (req, res, next) => {
    const auth = (res.locals.apiKeyAuth = (await authenticateBearer(db, req)) satisfies ApiKeyAuth);
    res.locals.actor = { type: 'api_key', id: auth.apiKeyId } satisfies Actor;
    next();
  };
}
