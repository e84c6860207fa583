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
    30_000,
  );
  expect(await runs('retention')).toBe(0);
  const text = await (await fetch(`http://127.0.0.1:${worker.port}/metrics`)).text();
  expect(text).toMatch(/^worker_job_last_success_seconds\{job="delivery-export"\} \d/m);
  expect(text).toContain('# TYPE worker_dead_letters gauge');
});
