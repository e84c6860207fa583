import http from 'node:http';
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
export function listenWithLimits(handler: http.RequestListener, port: number, host: string, limits: HttpServerLimits, onListening: () => void): http.Server {
  const requestTimeout = Math.max(1, limits.requestTimeoutMs);
  const headersTimeout = Math.max(1, Math.min(limits.headersTimeoutMs, requestTimeout));
  const server = http.createServer(
    {
      requestTimeout,
      headersTimeout,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(headersTimeout / 4))),
    },
    handler,
  );
  server.maxConnections = limits.maxConnections;
  return server.listen(port, host, onListening);
}
