import { Counter, type Registry } from 'prom-client';

/** Where webhook delivery attempts are counted (the worker: docs/operations.md, "Metrics"). */
export interface WebhookObserver {
  attempted(outcome: 'succeeded' | 'failed'): void;
}

/** `worker_webhook_deliveries_total{outcome}`: attempts that the receiver took (2xx) or not (another status, a network failure, a refused address). */
export function createWebhookMetrics(registry: Registry, prefix: string): WebhookObserver {
  const attempts = new Counter({
    name: `${prefix}_webhook_deliveries_total`,
    help: 'Webhook delivery attempts, by outcome: succeeded (the receiver answered 2xx) or failed (retried with backoff for 3 days)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  for (const outcome of ['succeeded', 'failed']) attempts.inc({ outcome }, 0);
  return { attempted: (outcome) => attempts.inc({ outcome }) };
}
