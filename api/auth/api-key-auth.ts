import type { Request, RequestHandler, Response } from 'express';
import type { Db } from '../../lib/db';
import { API_KEY_PATTERN, digestsEqual, hashSecret } from '../../lib/secrets';
import { DomainError } from '../../domain/errors';

/** Who is calling `/v1`: the organization of the key, and the key (rate budgets are per key). */
export interface ApiKeyAuth {
  organizationId: string;
  apiKeyId: string;
}

export function apiKeyAuthOf(res: Response): ApiKeyAuth {
  return res.locals.apiKeyAuth as ApiKeyAuth;
}

/** The calling organization's id. */
export const organizationOf = (res: Response): string => apiKeyAuthOf(res).organizationId;

const authRequired = () =>
  new DomainError('auth_required', 'No API key provided. Send Authorization: Bearer <API_KEY>.');
/** One error for every rejected key, so the response never tells why. */
const invalidApiKey = () => new DomainError('invalid_api_key', 'Invalid API key provided');

/** `last_used` is refreshed at most once a minute per key instead of on every request. */
const LAST_USED_RESOLUTION_MS = 60_000;

export function bearerToken(req: Request): string | null | undefined {
  const header = req.headers.authorization;
  if (header === undefined) return undefined;
  const match = /^Bearer ([^\s]+)$/.exec(header);
  return match ? match[1] : null;
}

export function apiKeyAuth(db: Db): RequestHandler {
  return async (req, res, next) => {
    const token = bearerToken(req);
    if (token === undefined) throw authRequired();
    // Malformed headers and non-`ak_` tokens (dashboard sessions) never reach a lookup.
    if (token === null || !API_KEY_PATTERN.test(token)) throw invalidApiKey();

    const secretHash = hashSecret(token);
    const key = await db.apiKey.findUnique({
      where: { secretHash },
      select: {
        id: true, secretHash: true, organizationId: true, revokedAt: true, expiresAt: true, lastUsedAt: true,
        organization: { select: { deletedAt: true } },
      },
    });
    const now = Date.now();
    const valid =
      key !== null &&
      digestsEqual(key.secretHash, secretHash) &&
      key.revokedAt === null &&
      (key.expiresAt === null || key.expiresAt.getTime() > now) &&
      key.organization.deletedAt === null;
    if (!valid) throw invalidApiKey();

    if (!key.lastUsedAt || now - key.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
      // Conditional, so concurrent first requests write once; fire and forget: a lost
      // update only makes last_used a minute staler.
      const stale = new Date(now - LAST_USED_RESOLUTION_MS);
      db.apiKey
        .updateMany({ where: { id: key.id, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: stale } }] }, data: { lastUsedAt: new Date(now) } })
        .catch((err) => console.error(`last_used update failed: ${err.message}`));
    }
    res.locals.apiKeyAuth = { organizationId: key.organizationId, apiKeyId: key.id } satisfies ApiKeyAuth;
    next();
  };
}
