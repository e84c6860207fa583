import { Client } from '@temporalio/client';
import { Counter, type Registry } from 'prom-client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { temporalConfig } from '../temporal.config';
import { creationActivities } from '../activities';
import { createAssetStore } from '../lib/asset-store';
import type { Db } from '../lib/db';
import { closeWithin } from '../lib/deadline';
import { config } from '../lib/config';
import { createStripeClient } from '../lib/stripe';
import { createCreativeGenerator } from '../domain/creatives/generator';
import { closeCampaignReview, openCampaignReview } from '../workflows/clients/campaign-review';
import type { EagerStart } from '../workflows/clients/campaign-creation';
import { loadWorkflowBundle, type WorkflowBundle } from './workflow-source';

/**
 * A worker on the campaign-creation saga's task queue (temporalConfig.taskQueues.creation).
 * The worker process runs one with every activity. Each api process runs one too, with
 * local activities only: it starts the saga eagerly, so the server answers the start with
 * the saga's first workflow task and this worker runs the whole saga (its steps are local
 * activities) without waiting for a poll (bench/README.md, campaign-create). The
 * compensations and the tree's image downloads, ordinary activities, stay with the worker
 * process; so does any task of a run whose api process died (after the task's timeout).
 */
export function createCreationWorker(
  connection: NativeConnection,
  bundle: WorkflowBundle,
  activities: object,
  options: { localActivitiesOnly?: boolean } = {},
): Promise<Worker> {
  return Worker.create({
    connection,
    namespace: temporalConfig.namespace,
    taskQueue: temporalConfig.taskQueues.creation,
    ...bundle,
    activities,
    enableNonLocalActivities: !options.localActivitiesOnly,
  });
}

/** The api process's creation worker: eager starts while it runs, and its bounded stop. */
export interface ApiCreationWorker extends EagerStart {
  close(): Promise<void>;
}

/**
 * Starts the api process's creation worker in the background (bundling the workflows takes
 * seconds; the api serves meanwhile, its creates dispatched through the server as before).
 * Logs `api creation worker ready` once eager starts go to it, and counts every start
 * (`api_campaign_creation_starts_total{start="eager"|"dispatched"}`). A worker that fails to
 * start or stops is logged and left: creates go on through the worker process.
 */
export function startApiCreationWorker(db: Db, temporal: Client, registry: Registry): ApiCreationWorker {
  const starts = new Counter({
    name: 'api_campaign_creation_starts_total',
    help: 'Creation sagas this api started, by where their first workflow task went: eager (this process, in the start answer) or dispatched (through a poll)',
    labelNames: ['start'],
    registers: [registry],
  });
  // The api stops itself (api/server.ts): the SDK must not take SIGINT/SIGTERM for its own shutdown.
  Runtime.install({ logger: new DefaultLogger((process.env.WORKER_LOG_LEVEL as 'INFO' | undefined) ?? 'WARN'), shutdownSignals: [] });
  let client: Client | null = null;
  let stop: (() => Promise<void>) | null = null;
  const started = (async () => {
    const connection = await NativeConnection.connect({ address: temporalConfig.address });
    const activities = creationActivities({
      db,
      stripe: createStripeClient(),
      assets: createAssetStore(),
      creatives: createCreativeGenerator(),
      reviewWorkflows: { open: (review) => openCampaignReview(temporal, review), close: (campaignId) => closeCampaignReview(temporal, campaignId) },
    });
    const worker = await createCreationWorker(connection, await loadWorkflowBundle(), activities, { localActivitiesOnly: true });
    const running = worker.run().finally(() => {
      client = null;
    });
    running.catch((err: Error) => console.error(`api creation worker stopped: ${err.message}`));
    stop = async () => {
      client = null;
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running.catch(() => undefined);
      await connection.close();
    };
    client = new Client({ connection, namespace: temporalConfig.namespace });
    console.log(`api creation worker ready on task queue ${temporalConfig.taskQueues.creation}`);
  })();
  started.catch((err: Error) => console.error(`api creation worker unavailable (creates go through the worker process): ${err.message}`));
  return {
    client: () => client,
    started: (eagerly) => starts.inc({ start: eagerly ? 'eager' : 'dispatched' }),
    close: () =>
      closeWithin(config.timeouts.closeMs, 'api creation worker stop', async () => {
        await started.catch(() => undefined);
        await stop?.();
      }),
  };
}
