import { Context } from '@temporalio/activity';
import { jobNamed } from '../jobs';
import type { JobDeps } from '../jobs/job';
import type { JobMetrics } from '../jobs/metrics';

/** Rests longer than this are the workflow's (a durable timer), not the activity's. */
const LONGEST_REST_IN_ACTIVITY_MS = 30_000;

export interface RunJobInput {
  name: string;
  sliceMs: number;
}

/**
 * The one activity that runs background jobs (jobs/job.ts): runs the named job
 * again and again for `sliceMs`, resting between runs that left no work,
 * heartbeating throughout; stops when the worker shuts down (cancellation).
 * A run that fails fails the slice: Temporal retries it with backoff. Answers
 * `rest: true` when the job's next rest is long enough for the workflow to take.
 */
export function jobActivities(deps: Omit<JobDeps, 'heartbeat'>, metrics: JobMetrics) {
  return {
    async runJob({ name, sliceMs }: RunJobInput): Promise<{ rest: boolean }> {
      const job = jobNamed(name);
      const context = Context.current();
      const jobDeps: JobDeps = { ...deps, heartbeat: () => context.heartbeat() };
      const until = Date.now() + sliceMs;
      // A worker's shutdown cancels its activities: a job that always has more (the event pipeline) must stop on it too, or SIGTERM waits out the slice.
      while (Date.now() < until && !context.cancellationSignal.aborted) {
        let run;
        try {
          run = await metrics.observe(job, jobDeps);
        } catch (err) {
          console.error(JSON.stringify({ level: 'error', msg: `background job ${name} failed; Temporal retries it`, error: (err as Error).message }));
          throw err;
        }
        context.heartbeat();
        if (run.more) continue;
        if (job.restMs > LONGEST_REST_IN_ACTIVITY_MS) return { rest: true };
        await context.sleep(Math.min(job.restMs, Math.max(0, until - Date.now())));
      }
      return { rest: false };
    },
  };
}
