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
import { startEventPipeline } from './event-pipeline';
import { startDeliveryBackground } from '../domain/delivery/tracker';
import { createPgPool } from '../lib/db';
import { lowerOwnPriority } from '../lib/process-priority';
import { startRetention } from './retention';

/** The Temporal worker process: every workflow and activity on the main task queue. */
async function main() {
  assertStartupConfig();
  // Background work yields the CPU to the request paths: on a busy machine the event
  // pipeline's once-a-second batch competed with /api/collect (bench:events, README).
  lowerOwnPriority(config.worker.nice);
  // Bundling and lifecycle chatter is INFO; keep the console for what needs attention.
  Runtime.install({ logger: new DefaultLogger((process.env.WORKER_LOG_LEVEL as 'INFO' | undefined) ?? 'WARN') });
  const db = createDb();
  const connection = await NativeConnection.connect({ address: temporalConfig.address });
  const worker = await Worker.create({
    connection,
    namespace: temporalConfig.namespace,
    taskQueue: temporalConfig.taskQueues.main,
    workflowsPath: require.resolve('../workflows'),
    activities: createActivities({
      db, stripe: createStripeClient(), assets: createAssetStore(), creatives: createCreativeGenerator(), clickhouse: createClickhouse(),
    }),
  });
  // The event pipeline runs on this worker's queue (it replaces a run left by a previous worker).
  const client = createTemporalClient();
  await startEventPipeline(client, temporalConfig.taskQueues.main);
  // Delivery tracking's background: ledger rows to ClickHouse, feedback to DSPs.
  const delivery = startDeliveryBackground({ pool: createPgPool(undefined, 3), clickhouse: createClickhouse(), clickhouseDatabase: config.clickhouse.database });
  // Raw rows past their time to live (README "Personal data and retention").
  const retentionClickhouse = createClickhouse();
  const retention = startRetention(db, retentionClickhouse, config.clickhouse.database);
  // SIGINT/SIGTERM: the SDK's runtime shuts the worker down itself (a second shutdown would throw).
  // Threads the SDK's runtime started meanwhile, too.
  lowerOwnPriority(config.worker.nice);
  console.log(`worker ready on task queue ${temporalConfig.taskQueues.main}`);
  await worker.run();
  await closeWithin(config.timeouts.closeMs, 'retention', () => retention.stop());
  await retentionClickhouse.close();
  await delivery.close();
  await closeWithin(config.timeouts.closeMs, 'temporal connection close', () => connection.close());
  await closeDb(db);
}

main().catch((err) => {
  console.error(`worker failed: ${err.stack ?? err}`);
  process.exit(1);
});
