import type { Client } from '@temporalio/client';
import { config } from '../lib/config';

/** One pipeline per (PostgreSQL database, task queue): the inbox it drains, the workers that run it. */
export function eventPipelineWorkflowId(taskQueue: string, databaseUrl = config.databaseUrl): string {
  const database = new URL(databaseUrl).pathname.replace(/^\//, '') || 'default';
  return `event-pipeline-${database}-${taskQueue}`;
}

/**
 * Started by every worker on start-up; workers of one task queue share its run
 * (the first starts it). Pipelines of other queues over the same database (a
 * second deployment, a test's own worker) take turns harmlessly: the activity's
 * advisory lock allows one mover, and a mover that dies mid-batch is recovered by
 * whichever runs next. So killing one worker never stops the others' pipeline.
 */
export async function startEventPipeline(client: Client, taskQueue: string): Promise<void> {
  await client.workflow.start('eventPipeline', {
    workflowId: eventPipelineWorkflowId(taskQueue),
    taskQueue,
    args: [{ waitMs: 5_000, batchSize: config.events.pipelineBatch, gatherMs: config.events.pipelineGatherMs }],
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
}
