import type { Client } from '@temporalio/client';
import { config } from '../lib/config';
import { closeWithin } from '../lib/deadline';
import { createTemporalClient } from '../lib/temporal';
import { JOBS } from '../jobs';
import type { BackgroundJobInput } from '../workflows/background-job';

/** How long one activity runs a job before handing back to its workflow. */
const SLICE_MS = 5 * 60_000;

/** One run of each job per (PostgreSQL database, task queue): the data it works on, the workers that run it. */
export function backgroundJobWorkflowId(job: string, taskQueue: string, databaseUrl = config.databaseUrl): string {
  const database = new URL(databaseUrl).pathname.replace(/^\//, '') || 'default';
  return `job-${job}-${database}-${taskQueue}`;
}

/**
 * Started by every worker on start-up (jobs/job.ts); workers of one task queue
 * share each job's run (the first starts it). Runs of other queues over the same
 * database (a test's own worker) take turns harmlessly: the movers hold advisory
 * locks. So killing one worker never stops the others' jobs.
 */
export async function startBackgroundJobs(client: Client, taskQueue: string): Promise<void> {
  for (const job of JOBS) {
    const input: BackgroundJobInput = { name: job.name, sliceMs: SLICE_MS, restMs: job.restMs, restFirst: job.restFirst };
    await client.workflow.start('backgroundJob', {
      workflowId: backgroundJobWorkflowId(job.name, taskQueue),
      taskQueue,
      args: [input],
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
  }
  // The event pipeline's run from before the jobs had one pattern: its workflow type is gone.
  const database = new URL(config.databaseUrl).pathname.replace(/^\//, '') || 'default';
  await client.workflow
    .getHandle(`event-pipeline-${database}-${taskQueue}`)
    .terminate('replaced by the event-pipeline background job')
    .catch(() => undefined);
}

/**
 * Ends a task queue's job runs (bounded): for queues no worker will ever poll
 * again, like a test's own (left running, they piled up by the hundred on the
 * development server). No run, nothing to do.
 */
export async function endBackgroundJobs(taskQueue: string, reason: string, databaseUrl?: string): Promise<void> {
  await closeWithin(config.timeouts.closeMs, 'background jobs terminate', async () => {
    const temporal = createTemporalClient();
    try {
      for (const job of JOBS) {
        await temporal.workflow
          .getHandle(backgroundJobWorkflowId(job.name, taskQueue, databaseUrl))
          .terminate(reason)
          .catch((err: Error) => {
            if (err.name !== 'WorkflowNotFoundError') throw err;
          });
      }
    } finally {
      await temporal.connection.close();
    }
  });
}
