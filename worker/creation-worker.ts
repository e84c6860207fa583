import { setTimeout as sleep } from 'node:timers/promises';
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
 * activities) without waiting for a poll (bench/history.md, campaign-create). The
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

/** Waits between two attempts to run the api's creation worker: 1 s, doubling, at most 30 s. */
const retryDelayMs = (attempt: number) => Math.min(30_000, 1000 * 2 ** Math.min(attempt, 5));

/**
 * Runs the api process's creation worker in the background (bundling the workflows takes
 * seconds; the api serves meanwhile, its creates dispatched through the server as before).
 * Logs `api creation worker ready` once eager starts go to it, and counts every start
 * (`api_campaign_creation_starts_total{start="eager"|"dispatched"}`). A worker that cannot
 * start (Temporal unreachable) or that stops is logged as unavailable and tried again, 1 s
 * to 30 s later: meanwhile creates go on through the worker process.
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
  const activities = creationActivities({
    db,
    stripe: createStripeClient(),
    assets: createAssetStore(),
    creatives: createCreativeGenerator(),
    reviewWorkflows: { open: (review) => openCampaignReview(temporal, review), close: (campaignId) => closeCampaignReview(temporal, campaignId) },
  });
  const closing = new AbortController();
  let client: Client | null = null;
  let worker: Worker | null = null;

  /** One run of the worker, from its connection to its end; throws what stopped it. */
  const runOnce = async (bundle: WorkflowBundle, ready: () => void) => {
    const connection = await NativeConnection.connect({ address: temporalConfig.address });
    try {
      worker = await createCreationWorker(connection, bundle, activities, { localActivitiesOnly: true });
      const running = worker.run();
      if (closing.signal.aborted && worker.getState() === 'RUNNING') worker.shutdown();
      client = new Client({ connection, namespace: temporalConfig.namespace });
      ready();
      console.log(`api creation worker ready on task queue ${temporalConfig.taskQueues.creation}`);
      await running;
    } finally {
      client = null;
      worker = null;
      await connection.close().catch(() => undefined);
    }
  };

  const supervised = (async () => {
    const bundle = await loadWorkflowBundle();
    for (let attempt = 0; !closing.signal.aborted; attempt += 1) {
      try {
        await runOnce(bundle, () => (attempt = 0));
      } catch (err) {
        if (closing.signal.aborted) return;
        const seconds = retryDelayMs(attempt) / 1000;
        console.error(`api creation worker unavailable, next try in ${seconds} s (creates go through the worker process): ${(err as Error).message}`);
      }
      await sleep(retryDelayMs(attempt), undefined, { signal: closing.signal }).catch(() => undefined);
    }
  })();
  supervised.catch((err: Error) => console.error(`api creation worker unavailable (creates go through the worker process): ${err.message}`));

  return {
    client: () => client,
    started: (eagerly) => starts.inc({ start: eagerly ? 'eager' : 'dispatched' }),
    close: () =>
      closeWithin(config.timeouts.closeMs, 'api creation worker stop', async () => {
        closing.abort();
        // Sagas it is running finish first; the SDK's shutdown waits for them.
        const current = worker;
        if (current?.getState() === 'RUNNING') current.shutdown();
        await supervised.catch(() => undefined);
      }),
  };
}
