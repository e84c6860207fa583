import { NativeConnection, Worker } from '@temporalio/worker';
import { temporalConfig } from '../temporal.config';
import { createActivities } from '../activities';
import { createDb } from '../lib/db';
import { createAssetStore } from '../lib/asset-store';
import { createStripeClient } from '../lib/stripe';
import { createCreativeGenerator } from '../api/creatives/generator';

/** The Temporal worker process: every workflow and activity on the main task queue. */
async function main() {
  const db = createDb();
  const connection = await NativeConnection.connect({ address: temporalConfig.address });
  const worker = await Worker.create({
    connection,
    namespace: temporalConfig.namespace,
    taskQueue: temporalConfig.taskQueues.main,
    workflowsPath: require.resolve('../workflows'),
    activities: createActivities({
      db, stripe: createStripeClient(), assets: createAssetStore(), creatives: createCreativeGenerator(),
    }),
  });
  const stop = () => worker.shutdown();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  console.log(`worker ready on task queue ${temporalConfig.taskQueues.main}`);
  await worker.run();
  await connection.close();
  await db.$disconnect();
}

main().catch((err) => {
  console.error(`worker failed: ${err.stack ?? err}`);
  process.exit(1);
});
