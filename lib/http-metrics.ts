import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * Prometheus metrics for an Express process (the api): process defaults and
 * one request-duration histogram in milliseconds, labelled by method, route
 * pattern and status. `metrics.middleware` times every request (each has one
 * Express route: docs/architecture.md, "One door"). The registry is served on
 * the process's internal metrics port (lib/metrics-server.ts).
 */
export interface HttpMetrics {
  registry: Registry;
  middleware: RequestHandler;
}

const MS_BUCKETS = [0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000];

export function createHttpMetrics(prefix: string): HttpMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: `${prefix}_` });
  const duration = new Histogram({
    name: `${prefix}_http_request_duration_ms`,
    help: 'HTTP request duration (ms)',
    labelNames: ['method', 'route', 'status'],
    buckets: MS_BUCKETS,
    registers: [registry],
  });
  const observe = (method: string, route: string, status: number, startedMs: number) =>
    duration.observe({ method, route, status: String(status) }, performance.now() - startedMs);
  return {
    registry,
    middleware(req: Request, res: Response, next: NextFunction) {
      const started = performance.now();
      // The matched route's declared pattern (labelRoute), never the raw path: ids must not become label values.
      res.on('finish', () => observe(req.method, (res.locals as { route?: string }).route ?? 'unmatched', res.statusCode, started));
      next();
    },
  };
}

/**
 * Names the route a request matched, for the duration metric's `route` label:
 * the pattern as declared (`/v1/campaigns/:campaign_id`), set when the route
 * matches (declared operations set theirs: lib/http/operations.ts). Express's
 * own baseUrl and route.path, read when the answer is sent, garbled it once an
 * error handler mounted on a path had run (`/api/collect/api/collect`).
 */
export function labelRoute(route: string): RequestHandler {
  return (_req, res, next) => {
    res.locals.route = route;
    next();
  };
}
