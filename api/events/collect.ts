import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type Request, type Response, type Router } from 'express';
import { Pool } from 'pg';
import { z } from 'zod';
import type { Db } from '../../lib/db';
import { config } from '../../lib/config';
import { DomainError } from '../../domain/errors';
import { clientIp } from '../../domain/events/client-ip';
import { collectedEventSchema, MAX_BATCH_EVENTS, parseEvent, type CollectedEvent } from '../../domain/events/event';
import { createInboxWriter, serializeEvents } from '../../domain/events/inbox';
import { defaultChunk, leasedBudget } from '../../domain/events/budget-lease';
import { apiKeyAuthOf, type ApiKeyAuth } from '../auth/api-key-auth';
import { cachedApiKeyAuth } from '../auth/cached-api-key-auth';
import { errorHandler } from '../../lib/http/errors';
import { plainJsonLength, readPlainJsonBody, writeJson } from '../../lib/http/plain-json';
import { defineOperation, mountOperations, type Operation } from '../../lib/http/operations';
import { consume, throttled, type RateLimitVerdict } from '../../domain/rate-limits/sliding-window';
import { rateBudgetHeaders } from '../../lib/errors';

/**
 * `POST {events_url}/api/collect`: server-side events with the organization's
 * `ak_` key. A single event (the body is the event) answers 204 once it is
 * committed to the durable inbox; the batch form (`{ events: [...] }`) answers
 * 200 with one result per event. `?validate_only=true` checks without storing.
 * Errors are the `/v1` error object.
 */
const PATH = '/api/collect';
export const COLLECT_BODY_LIMIT = '1mb';

const COLLECT_BODY_LIMIT_BYTES = 1024 * 1024;
const parseJson = express.json({ limit: COLLECT_BODY_LIMIT, type: () => true, strict: false });

function readJsonBody(req: Request, res: Response): Promise<unknown> {
  const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  if (!hasBody) throw new DomainError('invalid_value', 'The body must be a JSON object (an event, or { "events": [...] })');
  const length = plainJsonLength(req.headers, COLLECT_BODY_LIMIT_BYTES);
  if (length !== null) return readPlainJsonBody(req, length, { strict: false });
  if (!req.is('application/json')) throw new DomainError('unsupported_media_type', 'Request body must be application/json');
  return new Promise((resolve, reject) => parseJson(req, res, (err?: Error) => (err ? reject(err) : resolve(req.body))));
}

type EventResult = { index: number; status: 'accepted' | 'valid' | 'rejected'; error?: { code: string; message: string; param: string | null } };

const setHeaders = (res: ServerResponse, headers: Record<string, string>) => {
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
};

/** The body's events: one event, or a batch with a result per event (a bad event is rejected, the rest go on). */
function parseCollectBody(body: unknown, validateOnly: boolean): { events: CollectedEvent[]; results?: EventResult[] } {
  const isBatch = typeof body === 'object' && body !== null && !Array.isArray(body) && 'events' in body && !('event_name' in body);
  if (!isBatch) return { events: [parseEvent(body)] };
  const list = body.events;
  if (!Array.isArray(list) || list.length === 0 || list.length > MAX_BATCH_EVENTS) {
    throw new DomainError('invalid_value', `events must be an array of 1 to ${MAX_BATCH_EVENTS} events`, 'events');
  }
  const events: CollectedEvent[] = [];
  const results = list.map((item, index): EventResult => {
    try {
      events.push(parseEvent(item, `events[${index}].`));
      return { index, status: validateOnly ? 'valid' : 'accepted' };
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      return { index, status: 'rejected', error: { code: err.code, message: err.message, param: err.param } };
    }
  });
  return { events, results };
}

/** `POST /api/collect`: the operation, declared once (mounted by collectRoutes, documented in the OpenAPI document). */
export function collectOperation(db: Db): Operation {
  const budget = leasedBudget(
    (apiKeyId: string, cost: number) => consume(db, `events:${apiKeyId}`, config.events.perKeyPerHour, Date.now(), cost),
    () => defaultChunk(config.events.perKeyPerHour),
  );
  // The inbox's own small pool: the group commit needs few connections, and plain pg is fast.
  const inbox = createInboxWriter(new Pool({ connectionString: config.databaseUrl, max: 4, allowExitOnIdle: true }), budget, {
    maxBatch: 2000,
    maxConcurrentFlushes: 2,
  });
  const auth = cachedApiKeyAuth(db);

  /** Checks and stores the request's events (its key checked, its body read), then answers; errors are thrown. */
  async function collect(req: IncomingMessage, res: ServerResponse, key: ApiKeyAuth, body: unknown, validateOnly: boolean): Promise<void> {
    const { events, results } = parseCollectBody(body, validateOnly);
    const { organizationId, apiKeyId } = key;
    if (events.length > 0) {
      let verdict: RateLimitVerdict;
      if (validateOnly) {
        // Nothing is stored, but checks still count against the key's budget.
        verdict = await budget(apiKeyId, events.length);
      } else {
        const outcome = await inbox.submit({
          organizationId,
          apiKeyId,
          receivedAt: new Date(),
          events: serializeEvents(events),
          ipAddress: clientIp(req.socket.remoteAddress, req.headers['x-forwarded-for'], config.events.trustedProxies),
        });
        verdict = outcome.verdict;
      }
      if (!verdict.allowed) throw throttled(verdict);
      setHeaders(res, rateBudgetHeaders(verdict));
    }
    if (!results) {
      res.writeHead(204);
      res.end();
      return;
    }
    const rejected = results.filter((r) => r.status === 'rejected').length;
    writeJson(res, 200, { validate_only: validateOnly, accepted: validateOnly ? 0 : results.length - rejected, rejected, results });
  }

  return defineOperation({
    id: 'collectEvents',
    method: 'post',
    path: PATH,
    tag: 'Event collection',
    auth: 'apiKey',
    summary: 'Collect a server-side event (204 once durably stored), or a batch of up to 1,000 (200 with per-event results)',
    query: validateOnlyQuery,
    rawBody: { 'application/json': z.union([collectedEventSchema, batchSchema]) },
    before: [auth.middleware],
    success: { status: 204, description: 'The event is durably stored (or, with validate_only, valid)' },
    moreResponses: { 200: { description: 'Batch form: one result per event (accepted events are durably stored)', schema: batchResultSchema } },
    errors: ['invalid_value', 'required', 'invalid_json', 'body_too_large', 'unsupported_media_type'],
    handle: async ({ query }, req, res) => collect(req, res, apiKeyAuthOf(res), await readJsonBody(req, res), query.validate_only === 'true'),
  });
}

/** `{events_url}` routes: the operation, its errors in the `/v1` error object. */
export function collectRoutes(operations: Operation[]): Router {
  const router = mountOperations(operations);
  router.use(PATH, errorHandler);
  return router;
}

const validateOnlyQuery = z.object({ validate_only: z.enum(['true', 'false']).optional().describe('true: check only, store nothing') });
/** Batch items are checked one by one and reported in the 200 results, so any JSON value is a valid item. */
const batchSchema = z.object({
  events: z.array(z.unknown().describe('An event (as the single form); an invalid one is reported in results, not refused')).min(1).max(MAX_BATCH_EVENTS),
});
const batchResultSchema = z.object({
  validate_only: z.boolean(),
  accepted: z.number().int(),
  rejected: z.number().int(),
  results: z.array(
    z.object({
      index: z.number().int(),
      status: z.enum(['accepted', 'valid', 'rejected']),
      error: z.object({ code: z.string(), message: z.string(), param: z.string().nullable() }).optional(),
    }),
  ),
});
