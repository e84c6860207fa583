/**
 * Jest global setup. The services themselves (PostgreSQL, ClickHouse, Temporal)
 * are started by scripts/bootstrap.sh before jest runs; here we start the
 * processes the tests talk to through them: a Temporal worker on a task queue of
 * this run only, and the Stripe emulator on a free port.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { startStripeEmulator } from '../../dev/stripe-emulator/server';

const root = path.resolve(__dirname, '../..');

declare global {
  // eslint-disable-next-line no-var
  var __testProcesses: { worker: ChildProcess; closeStripe: () => Promise<void> } | undefined;
}

function waitForLine(child: ChildProcess, pattern: RegExp, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern}:\n${output}`)), timeoutMs);
    const onData = (data: Buffer) => {
      output += data.toString();
      if (pattern.test(output)) { clearTimeout(timer); resolve(); }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (d: Buffer) => { output += d.toString(); });
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`exited with ${code} before ready:\n${output}`)); });
  });
}

export default async function globalSetup() {
  process.env.NODE_ENV = 'test';
  process.env.TEMPORAL_TASK_QUEUE = `adplatform-test-${process.pid}-${Date.now()}`;

  const stripe = await startStripeEmulator({ port: 0 });
  process.env.STRIPE_EMULATOR_URL = stripe.url;
  delete process.env.STRIPE_SECRET_KEY;

  const worker = spawn(path.join(root, 'node_modules/.bin/tsx'), [path.join(root, 'worker/main.ts')], {
    cwd: root,
    env: process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await waitForLine(worker, /worker ready/, 120_000);
  // Keep draining so a chatty worker never blocks on a full pipe.
  worker.stdout!.resume();
  worker.stderr!.on('data', (d: Buffer) => { if (process.env.TEST_WORKER_LOGS) process.stderr.write(d); });
  globalThis.__testProcesses = { worker, closeStripe: stripe.close };
}
