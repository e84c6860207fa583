import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { z } from 'zod';
import { DomainError } from '../errors';
import { bodyObject, compiledSchema, parseOrThrow } from '../validation';
import { jsonBody } from './body';
import { writeJson } from './plain-json';
import type { ErrorCode } from './error-codes';
import { labelRoute } from '../http-metrics';
import { runAs, type Actor } from '../actor';

/**
 * Each HTTP operation is declared once: method, path, auth, request schemas,
 * documented outcomes and handler. `mountOperations` derives the Express routes
 * (with their parsing, and 405 + Allow for other methods on a known path);
 * lib/http/openapi.ts derives the OpenAPI entry from the same declaration.
 */
export type Auth = 'apiKey' | 'session' | 'dashboard' | 'publisherKey' | 'none';

/** An OpenAPI link from a response to another operation (stateful testing follows them). */
export interface Link {
  operationId: string;
  /** Parameter name -> runtime expression, e.g. `$response.body#/id`. */
  parameters: Record<string, string>;
}

export interface ParsedInput<Q, B> {
  query: Q;
  body: B;
  params: Record<string, string>;
}

export interface Operation<Q = unknown, B = unknown> {
  /** OpenAPI operationId, also what links point at. */
  id: string;
  method: 'get' | 'post' | 'delete';
  /** Express-style path (`/v1/campaigns/:campaign_id`). */
  path: string;
  summary: string;
  tag: string;
  auth: Auth;
  /** Path parameter schemas (documentation); undeclared ones are plain strings. */
  params?: Record<string, z.ZodType>;
  /** Query parameters: parsed before the handler runs (unless `handlerValidatesQuery`). */
  query?: z.ZodObject;
  /** The handler validates `req.query` itself (poll tracking: its own error format; insights: rules and codes beyond one schema each); `query` documents it. */
  handlerValidatesQuery?: true;
  /** Pairs of query parameters that are mutually exclusive (checked by the handler; documented). */
  exclusiveQuery?: [string, string][];
  /** JSON body: must be an object; parsed before the handler runs (unless `handlerValidatesBody`). */
  body?: z.ZodType;
  /** The handler validates `body` itself (so that, say, an idempotent replay can store the validation error). */
  handlerValidatesBody?: true;
  /** Other request media types, read by the handler itself (no JSON parsing before it). */
  rawBody?: Record<string, z.ZodType>;
  headers?: Record<string, { description: string; schema?: z.ZodType }>;
  success: { status: number; description: string; schema?: z.ZodType; links?: Record<string, Link> };
  /** Responses outside the error-code table, documented as given (another success form, another error format). */
  moreResponses?: Record<number, { description: string; schema?: z.ZodType }>;
  /** The error codes this operation answers with, besides its surface's (auth, rate limits, body parsing). */
  errors?: ErrorCode[];
  /** Middleware of this operation alone, run after parsing-independent surface middleware. */
  before?: RequestHandler[];
  /** The success body (sent with `success.status`), or undefined when the handler answered itself; or a promise of either. */
  handle(input: ParsedInput<Q, B>, req: Request, res: Response): unknown;
}

/** Declares an operation; typed input comes from its schemas. */
export function defineOperation<Q extends z.ZodObject | undefined = undefined, B extends z.ZodType | undefined = undefined>(
  op: Omit<Operation, 'query' | 'body' | 'handle'> & {
    query?: Q;
    body?: B;
    handle(
      input: ParsedInput<Q extends z.ZodType ? z.output<Q> : undefined, B extends z.ZodType ? z.output<B> : undefined>,
      req: Request,
      res: Response,
    ): unknown;
  },
): Operation {
  return op;
}

/** How a surface sends a success body (`/v1`: as is; the platform surface: in its envelope). */
export type Respond = (res: Response, status: number, body: unknown) => void;
const respondJson: Respond = (res, status, body) => {
  // The common answer (a JSON value, no type of the handler's own): res.json's bytes without its generic steps.
  if (body !== undefined && status !== 204 && !res.hasHeader('Content-Type')) return writeJson(res, status, body);
  res.status(status).json(body);
};

const METHOD_NAMES = { get: 'GET', post: 'POST', delete: 'DELETE' } as const;

function handlerOf(op: Operation, respond: Respond): RequestHandler {
  return async (req, res) => {
    const input: ParsedInput<unknown, unknown> = {
      query: op.query && !op.handlerValidatesQuery ? parseOrThrow(compiledSchema(op.query), req.query) : undefined,
      // The body's one validation, generated from its one declaration (lib/validation.ts compiledSchema).
      body: op.body && !op.handlerValidatesBody ? parseOrThrow(compiledSchema(op.body), bodyObject(req.body)) : undefined,
      params: req.params as Record<string, string>,
    };
    // The caller the surface's auth bound (res.locals.actor): what the audit log names as the change's author.
    const actor = res.locals.actor as Actor | undefined;
    const result = await (actor ? runAs(actor, () => op.handle(input, req, res)) : op.handle(input, req, res));
    if (!res.headersSent) respond(res, op.success.status, result);
  };
}

/**
 * A router serving `operations`: each with its own middleware, JSON parsing
 * (unless it reads its body itself) and input parsing; then, per path, 405
 * `method_not_allowed` with `Allow` for any other method (OPTIONS: 204 + Allow).
 */
export function mountOperations(operations: Operation[], respond: Respond = respondJson): Router {
  const router = Router({ mergeParams: true });
  const methodsByPath = new Map<string, string[]>();
  for (const op of operations) {
    const chain = [labelRoute(op.path), ...(op.rawBody ? [] : [jsonBody]), ...(op.before ?? []), handlerOf(op, respond)];
    router[op.method](op.path, ...chain);
    const methods = methodsByPath.get(op.path) ?? [];
    methods.push(METHOD_NAMES[op.method], ...(op.method === 'get' ? ['HEAD'] : []));
    methodsByPath.set(op.path, methods);
  }
  for (const [path, methods] of methodsByPath) {
    const allow = [...new Set([...methods, 'OPTIONS'])].join(', ');
    router.all(path, labelRoute(path), (req, res, next) => {
      res.set('Allow', allow);
      if (req.method === 'OPTIONS') return void res.status(204).end();
      next(new DomainError('method_not_allowed', `${req.method} is not allowed on ${req.path}; allowed: ${allow}`));
    });
  }
  return router;
}

/**
 * `router`, entered only by requests to its `operations`' paths (static ones, no parameters), as
 * Express matches them (any case, one trailing slash); every other request passes it in one
 * lookup instead of walking its layers (the api mounts its hot routers first).
 */
export function onlyOnPaths(operations: readonly Operation[], router: Router): RequestHandler {
  const routed = new Set(operations.map((op) => op.path.toLowerCase()));
  return (req, res, next) => {
    const path = req.path.toLowerCase();
    if (routed.has(path) || (path.endsWith('/') && routed.has(path.slice(0, -1)))) return router(req, res, next);
    next();
  };
}
