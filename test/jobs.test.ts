/**
 * Background jobs have one pattern (jobs/job.ts): a worker starts one Temporal
 * workflow per job on its task queue, runs each through the one activity, and
 * counts every run on its metrics port.
 */
import { startService, type ServiceProcess } from '../dev/processes';
import { createTemporalClient } from '../lib/temporal';
import { JOBS } from '../jobs';
import { backgroundJobWorkflowId, endBackgroundJobs } from '../worker/jobs';
import { until } from './support/wait';
import { closeDb, createDb } from '../lib/db';
import { insertInboxRows, serializeEvents } from '../domain/events/inbox';
import { newOrg } from './support/harness';
import { organizationIdOf } from './support/fixtures';

const taskQueue = `jobs-test-${process.pid}`;
const temporal = createTemporalClient();
let worker: ServiceProcess;

beforeAll(async () => {
  worker = await startService({
    service: 'worker',
    entry: 'worker/main.ts',
    ready: /worker ready/,
    portVariable: 'WORKER_METRICS_PORT',
    env: { TEMPORAL_TASK_QUEUE: taskQueue },
    startTimeoutMs: 120_000,
  });
}, 150_000);
afterAll(async () => {
  await worker?.stop();
  await endBackgroundJobs(taskQueue, 'test over');
  await temporal.connection.close();
});

test("each job runs as its own workflow, and its runs are counted on the worker's metrics port", async () => {
  for (const job of JOBS) {
    const { status, type } = await temporal.workflow.getHandle(backgroundJobWorkflowId(job.name, taskQueue)).describe();
    expect({ job: job.name, status: status.name, type }).toEqual({ job: job.name, status: 'RUNNING', type: 'backgroundJob' });
  }
  const runs = async (job: string) => {
    const text = await (await fetch(`http://127.0.0.1:${worker.port}/metrics`)).text();
    return Number(new RegExp(`^worker_job_runs_total\\{job="${job}",outcome="ok"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
  };
  // The movers run at once and again every second or so; retention rests an hour first.
  await until(
    async () => (await runs('delivery-export')) >= 2 && (await runs('dsp-callbacks')) >= 2 && (await runs('event-pipeline')) >= 1,
    'the jobs run',
    90_000,
  );
  expect(await runs('retention')).toBe(0);
  const text = await (await fetch(`http://127.0.0.1:${worker.port}/metrics`)).text();
  expect(text).toMatch(/^worker_job_last_success_seconds\{job="delivery-export"\} \d/m);
  expect(text).toContain('# TYPE worker_dead_letters gauge');
  // Webhook delivery attempts (domain/webhooks/metrics.ts), at 0 until the first.
  expect(text).toMatch(/^worker_webhook_deliveries_total\{outcome="succeeded"\} \d+$/m);
  expect(text).toMatch(/^worker_webhook_deliveries_total\{outcome="failed"\} \d+$/m);
}, 150_000);

test("the pipelines' backlogs and batch sizes on the worker's metrics port, after events went through", async () => {
  const db = createDb(undefined, 2);
  try {
    const organizationId = await organizationIdOf(db, await newOrg(db));
    const scrape = async () => (await fetch(`http://127.0.0.1:${worker.port}/metrics`)).text();
    const value = (text: string, line: RegExp) => Number(line.exec(text)?.[1] ?? NaN);
    const batches = async () => value(await scrape(), /^worker_job_batch_size_count\{job="event-pipeline"\} (\d+)$/m) || 0;
    // Events into the inbox until this worker's mover has taken a batch (the test run's own worker moves some too).
    await until(
      async () => {
        const events = serializeEvents(Array.from({ length: 5 }, (_, i) => ({ event_name: `jobs-metrics-${i}` })));
        await insertInboxRows(db, [{ organizationId, apiKeyId: 'jobs-test', receivedAt: new Date(), ipAddress: '127.0.0.1', events }]);
        return (await batches()) > 0;
      },
      "a batch moved by this worker's event pipeline",
      60_000,
    );
    const text = await scrape();
    const batchSum = value(text, /^worker_job_batch_size_sum\{job="event-pipeline"\} ([\d.]+)$/m);
    expect(batchSum).toBeGreaterThanOrEqual(1);
    expect(batchSum / (await batches())).toBeLessThanOrEqual(20_000);
    // The backlogs are read from PostgreSQL at each scrape: a few events at most, seconds old, and the export close behind.
    const depth = value(text, /^worker_event_inbox_depth (\d+)$/m);
    const lag = value(text, /^worker_event_pipeline_lag_seconds ([\d.e+-]+)$/m);
    const exportLag = value(text, /^worker_delivery_export_lag_seconds ([\d.e+-]+)$/m);
    expect(depth).toBeGreaterThanOrEqual(0);
    expect(depth).toBeLessThan(10_000);
    expect(lag).toBeGreaterThanOrEqual(0);
    expect(lag).toBeLessThan(120);
    expect(exportLag).toBeGreaterThanOrEqual(0);
    expect(exportLag).toBeLessThan(120);
    expect(text).toContain('# TYPE worker_job_batch_size histogram');
  } finally {
    await closeDb(db);
  }
}, 90_000);
