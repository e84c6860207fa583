import type { IncomingMessage, ServerResponse } from 'node:http';
import { withoutBom } from './plain-json';

/**
 * Direct routes: a service's few hot requests answered on node's own request
 * and response, before Express handles them at all (no router walk, closures
 * or prototype swap per request). A direct route answers the plain form of its
 * request itself and calls `fallThrough()` for anything else: Express then
 * handles the request as usual. `fallThrough(err)` hands Express an error,
 * which goes to the app's own error handlers (routers, and error handlers
 * inside them, are skipped); a route whose errors are answered inside its
 * router writes them itself (lib/http/errors.ts `writeError`).
 */
export type DirectRoute = (req: IncomingMessage, res: ServerResponse, fallThrough: (err?: unknown) => void) => void;

interface ExpressLike {
  handle(req: IncomingMessage, res: ServerResponse, callback?: unknown): void;
  use(handler: (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void): unknown;
}

const DIRECT_ERROR = Symbol('direct route error');
type DirectRequest = IncomingMessage & { [DIRECT_ERROR]?: unknown };

/**
 * Runs `routes`, in order, ahead of `app` (Express calls app.handle for every
 * request of app.listen's server). Call it right after creating the app: the
 * first middleware it adds passes a direct route's error on to Express.
 */
export function directRoutesFirst(app: unknown, routes: DirectRoute[]): void {
  const express = app as ExpressLike;
  const handle = express.handle.bind(app);
  express.handle = (req, res, callback) => {
    const toExpress = (err?: unknown) => {
      if (err !== undefined) (req as DirectRequest)[DIRECT_ERROR] = err;
      handle(req, res, callback);
    };
    const at = (i: number) => (i === routes.length ? toExpress() : routes[i](req, res, (err) => (err === undefined ? at(i + 1) : toExpress(err))));
    at(0);
  };
  express.use((req, _res, next) => next((req as DirectRequest)[DIRECT_ERROR]));
}

/** body-parser's error for a body it could not take (lib/http/errors.ts maps its `type`, or a 400 `expose`). */
const bodyError = (type: 'entity.parse.failed' | 'request.size.invalid' | 'request.aborted') =>
  Object.assign(new Error(type), { type, status: 400, expose: true });

/**
 * The one body reader of the direct routes: a plain JSON body of `length`
 * bytes (plain-json.ts said so), read and parsed as body-parser would, a
 * leading BOM dropped; `strict` (its default) takes only an object or an array
 * at the top. Errors are body-parser's, so the routes' answers match.
 */
export function readPlainJsonBody(req: IncomingMessage, length: number, { strict = true } = {}): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let ended = false;
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      chunks.push(chunk);
    });
    req.once('end', () => {
      ended = true;
      if (received !== length) return reject(bodyError('request.size.invalid'));
      const text = withoutBom((chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received)).toString('utf8'));
      if (strict) {
        const first = /^[\x20\x09\x0a\x0d]*(.)/.exec(text)?.[1];
        if (first !== '{' && first !== '[') return reject(bodyError('entity.parse.failed'));
      }
      try {
        resolve(JSON.parse(text));
      } catch {
        reject(bodyError('entity.parse.failed'));
      }
    });
    const aborted = () => {
      if (!ended) reject(bodyError('request.aborted'));
    };
    req.once('error', aborted);
    req.once('close', aborted);
  });
}

/**
 * The one JSON writer of the direct routes: res.json's bytes and headers on
 * node's own response. write() then end(), not end(text): the same bytes in one
 * direct socket write, without end()'s cork and buffered writev (whose
 * socket-owned buffer list kept answers alive past GCs).
 */
export function writeJson(res: ServerResponse, status: number, payload: unknown): void {
  const text = JSON.stringify(payload);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.write(text);
  res.end();
}
