import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Pool } from 'pg';
import type { Db } from '../lib/db';
import { eventInboxBacklog } from '../domain/events/backlog';
import { deliveryExportLagSeconds } from '../domain/delivery/metrics';
import { registerDeadLetterGauge } from '../domain/dead-letters/metrics';
import type { ClickHouseClient } from '@clickhouse/client';
import { config } from '../lib/config';
import { registerPublisherSpendGauges } from './publisher-spend';
import { pendingUserErasures } from '../domain/privacy/erasure';
import { createWebhookMetrics, type WebhookObserver } from '../domain/webhooks/metrics';
import type { Job, JobDeps, JobRun } from './job';

/**
 * Every run of every job, counted: `worker_job_runs_total{job,outcome}`, items, duration, last success,
 * and the size of the runs that moved something (`worker_job_batch_size`: the event pipeline's and the
 * delivery export's batches).
 */
export function createJobMetrics(registry: Registry) {
  const perJob = { labelNames: ['job'] as const, registers: [registry] };
  const runs = new Counter({
    name: 'worker_job_runs_total',
    help: 'Background job runs, by job and outcome (ok, error)',
    labelNames: ['job', 'outcome'],
    registers: [registry],
  });
  const items = new Counter({ name: 'worker_job_items_total', help: 'Items handled by background jobs (rows moved, calls sent, ...)', ...perJob });
  const duration = new Histogram({
    name: 'worker_job_run_duration_ms',
    help: 'Background job run duration (ms)',
    ...perJob,
    buckets: [1, 5, 10, 50, 100, 500, 1000, 5000, 10000, 60000],
  });
  const batchSize = new Histogram({
    name: 'worker_job_batch_size',
    help: 'Items per background job run that handled any (event pipeline: inbox rows per batch; delivery export: ledger rows)',
    ...perJob,
    buckets: [1, 10, 50, 100, 500, 1000, 2000, 5000, 10000, 20000],
  });
  const lastSuccess = new Gauge({ name: 'worker_job_last_success_seconds', help: "Unix time of each job's last successful run", ...perJob });
  return {
    /** Runs `job` once, counting it. */
    async observe(job: Job, deps: JobDeps): Promise<JobRun> {
      const started = performance.now();
      try {
        const run = await job.run(deps);
        runs.inc({ job: job.name, outcome: 'ok' });
        items.inc({ job: job.name }, run.items);
        if (run.items > 0) batchSize.observe({ job: job.name }, run.items);
        lastSuccess.set({ job: job.name }, Date.now() / 1000);
        return run;
      } catch (err) {
        runs.inc({ job: job.name, outcome: 'error' });
        throw err;
      } finally {
        duration.observe({ job: job.name }, performance.now() - started);
      }
    },
  };
}
export type JobMetrics = ReturnType<typeof createJobMetrics>;

/**
 * The pipelines' backlogs, read from PostgreSQL when scraped (so every worker
 * agrees, whichever one moves the rows): `worker_event_inbox_depth` and
 * `worker_event_pipeline_lag_seconds` (accepted events waiting, the oldest's
 * age), `worker_delivery_export_lag_seconds` (the oldest ledger row ClickHouse
 * does not have yet), `worker_user_erasures_pending` and `worker_user_erasure_oldest_seconds`
 * (hosts' erasures of their users not done yet). Alerts: docs/grafana/alerts.yml.
 */
export function registerBacklogGauges(registry: Registry, deps: { db: Db; pool: Pool }): void {
  const inbox = () => eventInboxBacklog(deps.db);
  // Each is read when scraped.
  const gauge = (name: string, help: string, read: () => Promise<number>) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        this.set(await read());
      },
    });
  gauge('worker_event_inbox_depth', 'Accepted events waiting in the durable inbox for the event pipeline', async () => (await inbox()).depth);
  gauge(
    'worker_event_pipeline_lag_seconds',
    'Age of the oldest accepted event still in the inbox (0 when empty): how far collected events are behind',
    async () => (await inbox()).oldestSeconds,
  );
  gauge(
    'worker_delivery_export_lag_seconds',
    'Age of the oldest delivery ledger row not exported to ClickHouse yet (0 when caught up): how far insights are behind',
    () => deliveryExportLagSeconds(deps.pool),
  );
  const erasures = () => pendingUserErasures(deps.pool);
  gauge(
    'worker_user_erasures_pending',
    "Chat hosts' user erasures accepted and not done yet (domain/privacy/erasure.ts)",
    async () => (await erasures()).pending,
  );
  gauge(
    'worker_user_erasure_oldest_seconds',
    'Age of the oldest user erasure not done yet (0 when none): hosts are promised done within 86,400',
    async () => (await erasures()).oldestSeconds,
  );
}

/**
 * The worker's registry, served on its internal metrics port (worker/main.ts): Node's defaults,
 * the jobs' runs, the pipelines' backlogs and the dead letters (docs/operations.md, "Metrics").
 */
export function createWorkerMetrics(deps: { db: Db; pool: Pool; ch?: ClickHouseClient }): {
  registry: Registry;
  jobMetrics: JobMetrics;
  webhooks: WebhookObserver;
} {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'worker_' });
  registerDeadLetterGauge(registry, 'worker', deps.db);
  registerBacklogGauges(registry, deps);
  registerPublisherSpendGauges(registry, { ch: deps.ch, database: config.clickhouse.database, rule: config.delivery.spendAlarm });
  return { registry, jobMetrics: createJobMetrics(registry), webhooks: createWebhookMetrics(registry, 'worker') };
}
