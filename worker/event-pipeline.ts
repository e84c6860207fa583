import type { Client } from '@temporalio/client';
import { config } from '../lib/config';

/** One pipeline per PostgreSQL database (the inbox it drains). */
export function eventPipelineWorkflowId(databaseUrl = config.databaseUrl): string {
  const database = new URL(databaseUrl).pathname.replace(/^\//, '') || 'default';
  return `event-pipeline-${database}`;
}

/**
 * Started by every worker on start-up: it replaces (terminates) a run left by a
 * previous worker, possibly on another task queue that nobody polls any more, so
 * the pipeline always runs on a live worker's queue. Two live workers of one
 * database take turns harmlessly: the activity's advisory lock allows one mover.
 */
export async function startEventPipeline(client: Client, taskQueue: string): Promise<void> {
  await client.workflow.start('eventPipeline', {
    workflowId: eventPipelineWorkflowId(),
    taskQueue,
    args: [{ waitMs: 5_000, batchSize: config.events.pipelineBatch }],
    workflowIdConflictPolicy: 'TERMINATE_EXISTING',
  });
}
