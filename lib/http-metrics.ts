import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * Prometheus metrics for an Express process (the api): process defaults and
 * one request-duration histogram in milliseconds, labelled by method, route
 * pattern and status. `metrics.middleware` times requests; `metrics.handler`
 * serves GET /metrics in the text format.
 */
const MS_BUCKETS = [0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000];

export function createHttpMetrics(prefix: string): { registry: Registry; middleware: RequestHandler; handler: RequestHandler } {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: `${prefix}_` });
  const duration = new Histogram({
    name: `${prefix}_http_request_duration_ms`, help: 'HTTP request duration (ms)', labelNames: ['method', 'route', 'status'], buckets: MS_BUCKETS, registers: [registry],
  });
  return {
    registry,
    middleware(req: Request, res: Response, next: NextFunction) {
      const started = performance.now();
      res.on('finish', () => {
        // The matched route pattern, never the raw path: ids must not become label values.
        const route = (req.route?.path as string | undefined) ?? 'unmatched';
        duration.observe({ method: req.method, route: `${req.baseUrl}${route}`, status: String(res.statusCode) }, performance.now() - started);
      });
      next();
    },
    async handler(_req: Request, res: Response) {
      res.set('content-type', registry.contentType);
      res.send(await registry.metrics());
    },
  };
}
