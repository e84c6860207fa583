import http from 'node:http';
import type { Express } from 'express';
import { config } from '../config';

/** What bounds one HTTP server's connections (config.http; docs/configuration.md). */
export interface HttpServerLimits {
  requestTimeoutMs: number;
  headersTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxConnections: number;
}

/** The configured limits of the api's or the auction's server. */
export const httpServerLimits = (service: 'api' | 'auction'): HttpServerLimits => ({
  requestTimeoutMs: config.http.requestTimeoutMs,
  headersTimeoutMs: config.http.headersTimeoutMs,
  keepAliveTimeoutMs: config.http.keepAliveTimeoutMs[service],
  maxConnections: config.http.maxConnections,
});

/**
 * An HTTP server for `handler` listening on `host:port`, with `limits`: a client
 * trickling its headers or body is answered 408 and cut off once the request
 * timeout passes (Node's default lets it hold the socket for five minutes), idle
 * kept-alive sockets close, and connections past the cap are refused. Node checks
 * the request and header timeouts on an interval (30 s by default), so that
 * interval is made a fraction of them.
 */
export function listenWithLimits(app: Express, port: number, host: string, limits: HttpServerLimits, onListening: () => void): http.Server {
  const requestTimeout = Math.max(1, limits.requestTimeoutMs);
  const headersTimeout = Math.max(1, Math.min(limits.headersTimeoutMs, requestTimeout));
  const server = http.createServer(
    {
      requestTimeout,
      headersTimeout,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(headersTimeout / 4))),
      ...expressObjects(app),
    },
    app,
  );
  server.maxConnections = limits.maxConnections;
  return server.listen(port, host, onListening);
}

/**
 * Request and response classes born with the Express app's prototypes, for the server to make
 * its objects with. Express's app.handle sets each request's and response's prototype to the
 * app's; on objects that already have it that is a no-op, where changing a live object's
 * prototype costs V8 its fast property access for the whole request (about half of the view
 * pixel's CPU on Express: bench/history.md, "One door's cost").
 */
function expressObjects(app: Express) {
  class Request extends http.IncomingMessage {}
  class Response extends http.ServerResponse {}
  adoptPrototype(app, 'request', Request.prototype);
  adoptPrototype(app, 'response', Response.prototype);
  return { IncomingMessage: Request, ServerResponse: Response };
}

/** Makes `prototype` the app's `request` (or `response`): Express's own methods above it, `app` on it, as Express builds them. */
function adoptPrototype(app: Express, key: 'request' | 'response', prototype: object): void {
  Object.setPrototypeOf(prototype, Object.getPrototypeOf(app[key] as object) as object);
  Object.defineProperty(prototype, 'app', { configurable: true, enumerable: true, writable: true, value: app });
  (app as unknown as Record<typeof key, object>)[key] = prototype;
}
