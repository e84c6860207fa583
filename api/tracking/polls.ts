import express, { Router, type ErrorRequestHandler, type Request, type RequestHandler } from 'express';
import { z } from 'zod';
import type { Db } from '../../lib/db';
import { readPollToken } from '../../domain/polls/poll-token';
import { castVote, PollError, pollResults } from '../../domain/polls/service';
import { DomainError } from '../../lib/errors';
import { defineOperation, mountOperations, type Operation } from '../../lib/http/operations';

/**
 * `{tracking_url}/api/v1/tracking/sponsored-polls/...`: no API key, the signed
 * token in the query string is the authorization. Errors are the spec's poll
 * errors (`{ detail }`), not the `/v1` error object.
 */
const BASE = '/api/v1/tracking/sponsored-polls';

interface FieldError {
  loc: (string | number)[];
  msg: string;
  type: string;
}

class PollHttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string | FieldError[],
  ) {
    super(typeof detail === 'string' ? detail : 'validation error');
  }
}

const LINK_NOT_FOUND = 'Link expired or not found';

/** FastAPI-style validation errors: every missing or mistyped field at once. */
function requireFields(req: Request, needsOption: boolean): { token: string; optionId: string } {
  const errors: FieldError[] = [];
  const token = req.query.token;
  if (token === undefined) errors.push({ loc: ['query', 'token'], msg: 'Field required', type: 'missing' });
  else if (typeof token !== 'string') errors.push({ loc: ['query', 'token'], msg: 'Input should be a valid string', type: 'string_type' });
  let optionId: unknown;
  if (needsOption) {
    const body: unknown = req.body;
    if (body === undefined || body === null) errors.push({ loc: ['body'], msg: 'Field required', type: 'missing' });
    else if (typeof body !== 'object' || Array.isArray(body)) {
      errors.push({ loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from', type: 'model_attributes_type' });
    } else {
      optionId = (body as Record<string, unknown>).option_id;
      if (optionId === undefined) errors.push({ loc: ['body', 'option_id'], msg: 'Field required', type: 'missing' });
      else if (typeof optionId !== 'string') errors.push({ loc: ['body', 'option_id'], msg: 'Input should be a valid string', type: 'string_type' });
    }
  }
  if (errors.length) throw new PollHttpError(422, errors);
  return { token: token as string, optionId: optionId as string };
}

function claimsOf(token: string, kind: 'vote' | 'results') {
  const claims = readPollToken(token, kind);
  if (!claims) throw new PollHttpError(404, LINK_NOT_FOUND);
  return claims;
}

const parseAnyJson = express.json({ limit: '16kb', type: () => true, strict: false });
/** A request without a body has none (the parser would make it `{}`): reported as the body missing. */
const parseJson: RequestHandler = (req, res, next) => {
  const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  if (!hasBody) {
    req.body = undefined;
    return next();
  }
  parseAnyJson(req, res, next);
};

const pollErrorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  let status = 500;
  let detail: string | FieldError[] = 'Internal Server Error';
  if (err instanceof PollHttpError) ({ status, detail } = err);
  else if (err instanceof PollError) {
    status = err.reason === 'invalid_option' ? 400 : 404;
    detail = err.reason === 'invalid_option' ? 'Invalid poll option' : LINK_NOT_FOUND;
  } else if ((err as { type?: string })?.type === 'entity.parse.failed') {
    status = 422;
    detail = [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }];
  } else if (err instanceof DomainError && err.code === 'method_not_allowed') {
    status = 405;
    detail = 'Method Not Allowed';
  } else if ((err as { type?: string })?.type === 'entity.too.large') {
    status = 413;
    detail = 'Request body too large';
  } else {
    console.error(JSON.stringify({ level: 'error', request_id: res.get('Request-Id'), path: req.path, error: String((err as Error)?.stack ?? err) }));
  }
  if (res.headersSent) return;
  res.status(status).json({ detail });
};

const resultsSchema = z.object({
  status: z.literal('success'),
  data: z.object({
    sponsored_poll_id: z.number().int(),
    question: z.string(),
    total_votes: z.number().int(),
    options: z.array(z.object({ id: z.string(), text: z.string(), votes: z.number().int(), percentage: z.number() })),
  }),
});
const detailSchema = z.object({ detail: z.string() });
const validationSchema = z.object({ detail: z.array(z.object({ loc: z.array(z.union([z.string(), z.number()])), msg: z.string(), type: z.string() })) });
const tokenQuery = z.object({ token: z.string().describe('The signed token of the delivered URL') });
const pollErrors = {
  404: { description: 'Link expired or not found (malformed, expired, tampered or foreign token)', schema: detailSchema },
  422: { description: 'token (or option_id) missing or not a string', schema: validationSchema },
  500: { description: 'Internal Server Error', schema: detailSchema },
};

/** The poll-tracking operations, declared once (mounted by pollRoutes, documented in the OpenAPI document). */
export function pollOperations(db: Db): Operation[] {
  return [
    defineOperation({
      id: 'votePoll',
      method: 'post',
      path: `${BASE}/vote`,
      tag: 'Poll tracking',
      auth: 'none',
      summary: 'Vote on a delivered sponsored poll (once per delivery)',
      query: tokenQuery,
      handlerValidatesQuery: true,
      rawBody: { 'application/json': z.object({ option_id: z.string() }) },
      before: [parseJson],
      success: { status: 200, description: 'Poll results (a repeated vote changes nothing)', schema: resultsSchema },
      moreResponses: { 400: { description: 'Invalid poll option', schema: detailSchema }, ...pollErrors },
      async handle(_input, req) {
        const { token, optionId } = requireFields(req, true);
        return { status: 'success', data: await castVote(db, claimsOf(token, 'vote'), optionId) };
      },
    }),
    defineOperation({
      id: 'pollResults',
      method: 'get',
      path: `${BASE}/results`,
      tag: 'Poll tracking',
      auth: 'none',
      summary: 'Results of a sponsored poll, without voting',
      query: tokenQuery,
      handlerValidatesQuery: true,
      success: { status: 200, description: 'Poll results', schema: resultsSchema },
      moreResponses: pollErrors,
      async handle(_input, req) {
        const { token } = requireFields(req, false);
        return { status: 'success', data: await pollResults(db, claimsOf(token, 'results')) };
      },
    }),
  ];
}

/** `{tracking_url}` routes: the operations, and every error (405 too) as a poll error. */
export function pollRoutes(operations: Operation[]): Router {
  const router = Router();
  router.use(mountOperations(operations));
  router.use(BASE, pollErrorHandler);
  return router;
}
