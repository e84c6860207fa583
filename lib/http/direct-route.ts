import type { IncomingMessage, ServerResponse } from 'node:http';

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
