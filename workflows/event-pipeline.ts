import { continueAsNew, proxyActivities, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { MoveBatchInput } from '../activities/event-pipeline';

const { moveEventBatch } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  // A dead worker's batch is retried elsewhere within seconds (the activity heartbeats while it waits).
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '5 seconds', backoffCoefficient: 2 },
});

/** Batches per run; then continue-as-new keeps the history bounded. */
const BATCHES_PER_RUN = 500;

/**
 * The event pipeline: forever, move the next inbox batch to ClickHouse (the
 * activity long-polls the inbox, so an idle pipeline costs one history entry
 * per wait, not per poll).
 */
export async function eventPipeline(input: MoveBatchInput): Promise<void> {
  for (let i = 0; i < BATCHES_PER_RUN; i++) {
    const result = await moveEventBatch(input);
    if (result.busy) await sleep('1 second');
  }
  await continueAsNew<typeof eventPipeline>(input);
}
