/**
 * Starts what tests and benchmarks talk to besides the bootstrapped services:
 * the Stripe emulator on a free port and a Temporal worker process on a task
 * queue of its own (so a running `npm start` worker never takes its tasks).
 * Settings go into process.env, which the worker and later children inherit.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { startStripeEmulator } from './stripe-emulator/server';
import { config } from '../lib/config';
import { closeWithin } from '../lib/deadline';
import pLimit from 'p-limit';
import { createTemporalClient } from '../lib/temporal';
import { endBackgroundJobs } from '../worker/jobs';
import { OWN_SESSION, serviceNodeArgs } from './node-flags';
import { endWithParent } from './processes';

const root = path.resolve(__dirname, '..');

export interface LocalStack {
  worker: ChildProcess;
  stripeUrl: string;
  stop(): Promise<void>;
}

function waitForLine(child: ChildProcess, pattern: RegExp, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern}:\n${output}`)), timeoutMs);
    const onData = (data: Buffer) => {
      output += data.toString();
      if (pattern.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (d: Buffer) => {
      output += d.toString();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before ready:\n${output}`));
    });
  });
}

export async function startLocalStack(name: string, options: { workerLogs?: boolean } = {}): Promise<LocalStack> {
  const taskQueue = `adplatform-${name}-${process.pid}-${Date.now()}`;
  process.env.TEMPORAL_TASK_QUEUE = taskQueue;
  const stripe = await startStripeEmulator({ port: 0 });
  process.env.STRIPE_EMULATOR_URL = stripe.url;
  // Its metrics on a free port: a running `npm start` worker holds the default one.
  process.env.WORKER_METRICS_PORT ??= '0';
  delete process.env.STRIPE_SECRET_KEY;

  // node itself in a session of its own, as `npm start` runs it: its nice then lowers its scheduling group (lib/process-priority.ts).
  const worker = spawn(process.execPath, serviceNodeArgs('worker', path.join(root, 'worker/main.ts')), {
    cwd: root,
    env: process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...OWN_SESSION,
  });
  // SIGTERM: the worker drains its running jobs and stops.
  endWithParent(worker, 'SIGTERM');
  await waitForLine(worker, /worker ready/, 120_000);
  // Keep draining so a chatty worker never blocks on a full pipe.
  worker.stdout.on('data', (d: Buffer) => {
    if (options.workerLogs) process.stderr.write(d);
  });
  worker.stderr.on('data', (d: Buffer) => {
    if (options.workerLogs) process.stderr.write(d);
  });

  return {
    worker,
    stripeUrl: stripe.url,
    async stop() {
      if (worker.exitCode === null) {
        const exited = new Promise((r) => worker.once('exit', r));
        worker.kill('SIGTERM');
        const force = setTimeout(() => worker.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(force);
      }
      await endBackgroundJobs(taskQueue, 'local stack stopped');
      await endQueueWorkflows(taskQueue);
      // Bounded: a keep-alive client must not hold the run's teardown open.
      await closeWithin(config.timeouts.closeMs, 'stripe emulator close', () => stripe.close());
    },
  };
}

/**
 * Ends what the stack's task queue still runs besides its jobs: campaign reviews waiting for a
 * reviewer, creative reviews, lifecycles. No worker polls the queue again, and left running they
 * filled the shared development server, which slows as it fills (bench/history.md,
 * campaign-create). Bounded, and a failure is logged: the run's results stand.
 */
async function endQueueWorkflows(taskQueue: string): Promise<void> {
  await closeWithin(config.timeouts.closeMs * 4, 'task queue workflows terminate', async () => {
    const temporal = createTemporalClient();
    try {
      const limit = pLimit(8);
      const ends: Promise<unknown>[] = [];
      for await (const run of temporal.workflow.list({ query: `TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Running'` })) {
        ends.push(
          limit(() =>
            temporal.workflow
              .getHandle(run.workflowId, run.runId)
              .terminate('local stack stopped')
              .catch(() => undefined),
          ),
        );
      }
      await Promise.all(ends);
    } finally {
      await temporal.connection.close();
    }
  });
}
