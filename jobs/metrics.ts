import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Job, JobDeps, JobRun } from './job';

/** Every run of every job, counted: `worker_job_runs_total{job,outcome}`, items, duration, last success. */
export function createJobMetrics(registry: Registry) {
  const runs = new Counter({
    name: 'worker_job_runs_total',
    help: 'Background job runs, by job and outcome (ok, error)',
    labelNames: ['job', 'outcome'],
    registers: [registry],
  });
  const items = new Counter({
    name: 'worker_job_items_total',
    help: 'Items handled by background jobs (rows moved, calls sent, ...)',
    labelNames: ['job'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'worker_job_run_duration_ms',
    help: 'Background job run duration (ms)',
    labelNames: ['job'],
    registers: [registry],
    buckets: [1, 5, 10, 50, 100, 500, 1000, 5000, 10000, 60000],
  });
  const lastSuccess = new Gauge({
    name: 'worker_job_last_success_seconds',
    help: "Unix time of each job's last successful run",
    labelNames: ['job'],
    registers: [registry],
  });
  return {
    /** Runs `job` once, counting it. */
    async observe(job: Job, deps: JobDeps): Promise<JobRun> {
      const started = performance.now();
      try {
        const run = await job.run(deps);
        runs.inc({ job: job.name, outcome: 'ok' });
        items.inc({ job: job.name }, run.items);
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
