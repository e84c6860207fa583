import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { temporalConfig } from '../temporal.config';
import { createActivities } from '../activities';
import { assertStartupConfig, config } from '../lib/config';
import { closeDb, createDb } from '../lib/db';
import { closeWithin } from '../lib/deadline';
import { createAssetStore } from '../lib/asset-store';
import { createStripeClient } from '../lib/stripe';
import { createCreativeGenerator } from '../domain/creatives/generator';
import { createClickhouse } from '../lib/clickhouse/client';
import { createTemporalClient } from '../lib/temporal';
import { createPgPool } from '../lib/db';
import { lowerOwnPriority } from '../lib/process-priority';
import { startMetricsServer } from '../lib/metrics-server';
import { deliveryExportJob } from '../jobs/delivery-export';
import { runUntilIdle } from '../jobs/job';
import { createWorkerMetrics } from '../jobs/metrics';
import { startBackgroundJobs } from './jobs';
import { loadWorkflowBundle } from './workflow-source';
import { createCreationWorker } from './creation-worker';
import { closeCampaignReview, openCampaignReview } from '../workflows/clients/campaign-review';
import { startWebhookDeliveries } from '../workflows/clients/webhook-delivery';
import { loadGeoDatabase } from '../domain/events/geo';

/** The Temporal worker process: every workflow and activity, on the main task queue and the creation saga's. */
async function main() {
  assertStartupConfig('worker');
  // Background work yields the CPU to the request paths: on a busy machine the event
  // pipeline's once-a-second batch competed with /api/collect (bench/history.md, "events").
  lowerOwnPriority(config.worker.nice);
  // Bundling and lifecycle chatter is INFO; keep the console for what needs attention.
  Runtime.install({ logger: new DefaultLogger((process.env.WORKER_LOG_LEVEL as 'INFO' | undefined) ?? 'WARN') });
  const db = createDb();
  const pool = createPgPool(undefined, 3);
  const clickhouse = createClickhouse();
  // Metrics on the worker's internal port (lib/metrics-server.ts): every background job's runs, the pipelines' backlogs.
  const { registry, jobMetrics, webhooks } = createWorkerMetrics({ db, pool, ch: clickhouse });
  const metrics = await startMetricsServer(registry, { host: config.metrics.host, port: config.metrics.workerPort });
  console.log(`worker metrics on ${metrics.url}`);
  const connection = await NativeConnection.connect({ address: temporalConfig.address });
  const client = createTemporalClient();
  const activities = createActivities({
    db,
    stripe: createStripeClient(),
    assets: createAssetStore(),
    creatives: createCreativeGenerator(),
    clickhouse,
    pool,
    jobMetrics,
    reviewWorkflows: { open: (review) => openCampaignReview(client, review), close: (campaignId) => closeCampaignReview(client, campaignId) },
    webhookDeliveries: (deliveries) => startWebhookDeliveries(client, deliveries),
    webhookObserver: webhooks,
  });
  // The event pipeline's IP database, before any batch needs it (domain/events/geo.ts).
  loadGeoDatabase();
  const bundle = await loadWorkflowBundle();
  const worker = await Worker.create({ connection, namespace: temporalConfig.namespace, taskQueue: temporalConfig.taskQueues.main, ...bundle, activities });
  // The creation saga's queue: runs no api process took eagerly, their ordinary activities (compensations, image downloads).
  const creationWorker = await createCreationWorker(connection, bundle, activities);
  // The background jobs run on this worker's queue (workers of one queue share each job's run).
  await startBackgroundJobs(client, temporalConfig.taskQueues.main);
  // SIGINT/SIGTERM: the SDK's runtime shuts the worker down itself (a second shutdown would throw).
  // Threads the SDK's runtime started meanwhile, too.
  lowerOwnPriority(config.worker.nice);
  console.log(`worker ready on task queues ${temporalConfig.taskQueues.main} and ${temporalConfig.taskQueues.creation}`);
  await Promise.all([worker.run(), creationWorker.run()]);
  // A normal stop exports what the trackers committed (a killed worker leaves it for the next one).
  const ms = config.timeouts.closeMs;
  const jobDeps = { db, pool, clickhouse, database: config.clickhouse.database, heartbeat: () => {} };
  await closeWithin(ms, 'last delivery export', () => runUntilIdle(deliveryExportJob, jobDeps));
  await closeWithin(ms, 'metrics server close', () => metrics.close());
  await closeWithin(ms, 'temporal connection close', () => connection.close());
  await closeWithin(ms, 'clickhouse close', () => clickhouse.close());
  await closeWithin(ms, 'pool end', () => pool.end());
  await closeDb(db);
}

main().catch((err: unknown) => {
  console.error(`worker failed: ${(err as Error).stack ?? String(err)}`);
  process.exit(1);
});
