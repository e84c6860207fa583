import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import type { Db } from '../../lib/db';
import { hashSecret } from '../../lib/secrets';
import { LRUCache } from 'lru-cache';
import { authenticateApiKey, type ApiKeyAuth } from '../../domain/api-keys/authenticate';
import { authenticateBearer, bearerToken } from './api-key-auth';

export interface CachedApiKeyAuthOptions {
  /** How long a successful check is trusted: a revoked or expired key stops working within this. */
  ttlMs?: number;
  /** Age at which a remembered check is renewed in the background (default ttlMs / 2). */
  refreshAfterMs?: number;
  maxEntries?: number;
  /** A key's check when it is not remembered: the /v1 authentication, its errors included. */
  authenticateRequest?: (req: Pick<IncomingMessage, 'headers'>) => Promise<ApiKeyAuth>;
  /** The background renewal of a remembered key: null when it is no longer valid. */
  authenticateSecret?: (secret: string) => Promise<ApiKeyAuth | null>;
  now?: () => number;
}

interface Entry {
  auth: ApiKeyAuth;
  checkedAt: number;
  refreshing: boolean;
}

/**
 * The organization's key, checked by the /v1 authentication and then
 * remembered (by key digest), so a steady stream does not look its key up on
 * every request. A remembered check is trusted for `ttlMs` after it was made;
 * past half of that, the next request renews it in the background (one
 * renewal at a time) while the remembered one still serves: were it to simply
 * expire, every request arriving until the first lookup finished would look
 * the key up itself, a herd of queries at every expiry.
 *
 * A revoked or expired key stops working within `ttlMs` (a renewal that finds
 * it invalid drops it at once; a failed renewal leaves the old check to expire).
 * Failures are never remembered.
 */
export function cachedApiKeyAuth(db: Db, options: CachedApiKeyAuthOptions = {}) {
  const ttlMs = options.ttlMs ?? 5_000;
  const refreshAfterMs = options.refreshAfterMs ?? ttlMs / 2;
  const authenticateRequest = options.authenticateRequest ?? ((req) => authenticateBearer(db, req));
  const authenticateSecret = options.authenticateSecret ?? ((secret) => authenticateApiKey(db, secret));
  const now = options.now ?? Date.now;
  const cache = new LRUCache<string, Entry>({ max: options.maxEntries ?? 10_000 });

  const remember = (digest: string, auth: ApiKeyAuth) => {
    cache.set(digest, { auth, checkedAt: now(), refreshing: false });
  };

  function renew(digest: string, secret: string, entry: Entry) {
    entry.refreshing = true;
    authenticateSecret(secret).then(
      (auth) => {
        if (cache.get(digest) !== entry) return;
        if (auth) remember(digest, auth);
        else cache.delete(digest);
      },
      () => {
        entry.refreshing = false;
      },
    );
  }

  /** The key's remembered check, if still trusted (renewed in the background when due). */
  function lookup(req: Pick<IncomingMessage, 'headers'>): ApiKeyAuth | undefined {
    const secret = bearerToken(req);
    if (!secret) return undefined;
    const digest = hashSecret(secret);
    const entry = cache.get(digest);
    if (!entry) return undefined;
    const age = now() - entry.checkedAt;
    if (age >= ttlMs) return undefined;
    if (age >= refreshAfterMs && !entry.refreshing) renew(digest, secret, entry);
    return entry.auth;
  }

  const middleware: RequestHandler = async (req, res, next) => {
    const remembered = lookup(req);
    if (remembered) {
      res.locals.apiKeyAuth = remembered;
      return next();
    }
    const auth = await authenticateRequest(req);
    remember(hashSecret(bearerToken(req)!), auth);
    res.locals.apiKeyAuth = auth;
    next();
  };

  return { middleware, lookup };
}
