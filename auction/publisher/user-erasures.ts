import type { IncomingMessage } from 'node:http';
import type { Request, RequestHandler } from 'express';
import { z } from 'zod';
import { DomainError } from '../../domain/errors';
import type { PublisherRecord } from '../../domain/publishers';
import { findUserErasure, requestUserErasure, USER_ERASURE_STATUSES, USER_KEYED_STORES, userErasureBodySchema } from '../../domain/privacy/erasure';
import { consume, throttled } from '../../domain/rate-limits/sliding-window';
import { plainPoolOf, type Db } from '../../lib/db';
import { rateBudgetHeaders } from '../../lib/errors';
import { defineOperation, type Operation } from '../../lib/http/operations';

/**
 * A chat host erases one of its users (domain/privacy/erasure.ts):
 * `POST /v1/publisher/user_erasures` with its publisher key answers 202 once
 * the request is committed, `GET /v1/publisher/user_erasures/{id}` says how far
 * it is. The key is checked before the body is read; requests count against
 * an hourly budget per publisher (ERASURES_PER_HOUR, shared by every auction process).
 */
export const ERASURES_PER_HOUR = 10_000;

const STORE_DESCRIPTIONS: Record<(typeof USER_KEYED_STORES)[number], string> = {
  frequency_events: "Rows of the user's frequency history deleted: the ads shown to the user and in the user's conversations",
  traffic_bursts: 'Rows of the invalid-traffic burst counters keyed to the user deleted',
};
export const userErasureSchema = z.object({
  id: z.uuid().describe('The erasure'),
  object: z.literal('user_erasure').describe('Always `user_erasure`'),
  status: z
    .enum(USER_ERASURE_STATUSES)
    .describe('`pending` until every store has been swept twice (the second once links minted before the request expired), then `done`'),
  requested_at: z.iso.datetime().describe('When the request was accepted (UTC)'),
  due_by: z.iso.datetime().describe('requested_at + 24 hours: done by then at the latest'),
  completed_at: z.iso.datetime().nullable().describe('When it was done; null while pending'),
  deleted: z
    .object(
      Object.fromEntries(USER_KEYED_STORES.map((s) => [s, z.int().min(0).describe(STORE_DESCRIPTIONS[s])])) as Record<
        (typeof USER_KEYED_STORES)[number],
        z.ZodInt
      >,
    )
    .describe('Rows deleted so far, per store keyed to the user (every one there is)'),
});

type PublisherRequest = Request & { erasurePublisher?: PublisherRecord };
const publisherOf = (req: Request) => (req as PublisherRequest).erasurePublisher!;

export function userErasureOperations(deps: { authenticate(req: IncomingMessage): PublisherRecord; db: Db }): Operation[] {
  const authenticate: RequestHandler = (req, _res, next) => {
    try {
      (req as PublisherRequest).erasurePublisher = deps.authenticate(req);
      next();
    } catch (err) {
      next(err);
    }
  };
  const rateLimit: RequestHandler = async (req, res, next) => {
    const verdict = await consume(deps.db, `user_erasures:${publisherOf(req).id}`, ERASURES_PER_HOUR);
    if (!verdict.allowed) throw throttled(verdict, 'Too many user erasures for this publisher key; retry after the Retry-After seconds');
    res.set(rateBudgetHeaders(verdict));
    next();
  };
  const pool = () => plainPoolOf(deps.db);
  return [
    defineOperation({
      id: 'createUserErasure',
      method: 'post',
      path: '/v1/publisher/user_erasures',
      tag: 'Auction',
      summary:
        "Erase one of the calling publisher's users: every row keyed to that user id is deleted within 24 hours (money totals unchanged); a second request while one is pending answers it",
      auth: 'publisherKey',
      body: userErasureBodySchema,
      errors: ['required', 'invalid_value', 'string_too_long', 'rate_limit_exceeded'],
      before: [authenticate, rateLimit],
      success: {
        status: 202,
        description: 'Accepted and recorded: the worker does the rest',
        schema: userErasureSchema,
        links: { GetUserErasure: { operationId: 'getUserErasure', parameters: { id: '$response.body#/id' } } },
      },
      handle: async ({ body }, req) => requestUserErasure(pool(), publisherOf(req).publicId, body.user_id),
    }),
    defineOperation({
      id: 'getUserErasure',
      method: 'get',
      path: '/v1/publisher/user_erasures/:id',
      tag: 'Auction',
      summary: "One of the calling publisher's user erasures: pending or done, and what was deleted",
      auth: 'publisherKey',
      params: { id: z.string().describe('The erasure id (another publisher’s, or an unknown one, is not found)') },
      errors: ['not_found'],
      before: [authenticate],
      success: { status: 200, description: 'The erasure', schema: userErasureSchema },
      handle: async ({ params }, req) => {
        const erasure = await findUserErasure(pool(), publisherOf(req).publicId, params.id);
        if (!erasure) throw new DomainError('not_found', 'No such user erasure', 'id');
        return erasure;
      },
    }),
  ];
}
