import { continueAsNew, proxyActivities, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities';

const { runJob } = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  // A dead worker's slice is taken up elsewhere within seconds (the activity heartbeats).
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

export interface BackgroundJobInput {
  name: string;
  /** How long one activity runs the job before handing back (jobs/job.ts). */
  sliceMs: number;
  /** The job's rest after a run that left no work, when the activity hands it back to take here. */
  restMs: number;
  restFirst?: boolean;
}

/** Slices per run; then continue-as-new keeps the history bounded. */
const SLICES_PER_RUN = 200;

/**
 * One background job, forever (jobs/job.ts): slices of the `runJob` activity,
 * and the long rests between them as durable timers (a retention job rests an
 * hour, whichever worker comes and goes meanwhile).
 */
export async function backgroundJob(input: BackgroundJobInput): Promise<void> {
  if (input.restFirst) await sleep(input.restMs);
  for (let i = 0; i < SLICES_PER_RUN; i++) {
    const { rest } = await runJob({ name: input.name, sliceMs: input.sliceMs });
    if (rest) await sleep(input.restMs);
  }
  await continueAsNew<typeof backgroundJob>({ ...input, restFirst: false });
}
