/**
 * What Temporal's eager workflow start would save the campaign-creation saga on this
 * machine (issue 26 asks which of local activities, fewer workflow tasks and eager
 * start helps). A workflow of one local activity is started and awaited through the
 * real dev server, two ways, alternating, with a worker in this process:
 * - `dispatched`: as the api does today (a client of its own; the server hands the
 *   first workflow task to a polling worker);
 * - `eager`: `requestEagerStart` on a client sharing the worker's NativeConnection (the
 *   server returns the first task in the start's answer). This needs the worker in
 *   the caller's process: for the saga, a worker inside the api.
 * Prints the medians of start (until the start RPC answered), first step (until the
 * local activity began) and whole (until the result), and ends with one line
 * `eager-start runs dispatched_first_step_ms dispatched_whole_ms eager_first_step_ms eager_whole_ms`.
 *
 *   npx tsx bench/eager-start.ts
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { temporalConfig } from '../temporal.config';
import { createTemporalClient } from '../lib/temporal';
import { percentile } from './support/load';
import type { oneLocalStep } from './support/eager-start/workflows';

const RUNS = Number(process.env.BENCH_RUNS ?? 40);

interface Timing {
  start: number;
  firstStep: number;
  whole: number;
}

async function main() {
  const taskQueue = `bench-eager-${process.pid}-${Date.now()}`;
  const connection = await NativeConnection.connect({ address: temporalConfig.address });
  let stepStartedAt = 0;
  const worker = await Worker.create({
    connection,
    namespace: temporalConfig.namespace,
    taskQueue,
    workflowsPath: require.resolve('./support/eager-start/workflows'),
    activities: {
      step: async () => {
        stepStartedAt = performance.now();
        return 1;
      },
    },
  });
  const eagerClient = new Client({ connection, namespace: temporalConfig.namespace });
  const ownClient = createTemporalClient();

  const once = async (client: Client, eager: boolean): Promise<Timing> => {
    const t0 = performance.now();
    const handle = await client.workflow.start<typeof oneLocalStep>('oneLocalStep', {
      taskQueue,
      workflowId: `bench-eager-${randomUUID()}`,
      requestEagerStart: eager,
    });
    const started = performance.now();
    await handle.result();
    return { start: started - t0, firstStep: stepStartedAt - t0, whole: performance.now() - t0 };
  };

  const results = await worker.runUntil(async () => {
    // Warm-up: the workflow bundle, connections, caches.
    for (let i = 0; i < 5; i += 1) await Promise.all([once(ownClient, false), once(eagerClient, true)]);
    const dispatched: Timing[] = [];
    const eager: Timing[] = [];
    for (let i = 0; i < RUNS; i += 1) {
      dispatched.push(await once(ownClient, false));
      eager.push(await once(eagerClient, true));
    }
    return { dispatched, eager };
  });

  const median = (ts: Timing[], key: keyof Timing) =>
    percentile(
      ts.map((t) => t[key]).sort((a, b) => a - b),
      50,
    ).toFixed(1);
  for (const [name, ts] of Object.entries(results)) {
    console.log(
      `${name.padEnd(10)} start ${median(ts, 'start')} ms  first step ${median(ts, 'firstStep')} ms  whole ${median(ts, 'whole')} ms (medians of ${RUNS})`,
    );
  }
  console.log(
    `eager-start runs=${RUNS} dispatched_first_step_ms=${median(results.dispatched, 'firstStep')} dispatched_whole_ms=${median(results.dispatched, 'whole')} eager_first_step_ms=${median(results.eager, 'firstStep')} eager_whole_ms=${median(results.eager, 'whole')}`,
  );
  await ownClient.connection.close();
  await connection.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
