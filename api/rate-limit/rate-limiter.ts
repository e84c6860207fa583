import type { RequestHandler } from 'express';
import type { Db } from '../../lib/db';
import { apiKeyAuthOf } from '../auth/api-key-auth';
import { rateBudgetHeaders } from '../../lib/errors';
// The counting rule is the domain's (shared with the API-key mint budget); this is its HTTP edge.
import { consume, throttled } from '../../domain/rate-limits/sliding-window';

/**
 * Middleware for one per-key budget. The response carries the budget as the
 * `X-RateLimit-*` headers clients of Stripe-like APIs read, and `Retry-After` on 429.
 */
export function rateLimit(db: Db, name: string, limit: () => number): RequestHandler {
  return async (_req, res, next) => {
    const { apiKeyId } = apiKeyAuthOf(res);
    const verdict = await consume(db, `${name}:${apiKeyId}`, limit());
    if (!verdict.allowed) throw throttled(verdict);
    // With two budgets (all requests + campaign creates) the tighter one is shown.
    const shown = Number(res.get('X-RateLimit-Remaining') ?? Infinity);
    if (verdict.remaining < shown) res.set(rateBudgetHeaders(verdict));
    next();
  };
}
