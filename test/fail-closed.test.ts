/**
 * Fail closed (issue 7, item 7): with NODE_ENV=production each process refuses
 * to start when a variable it would otherwise default (database URL, Stripe
 * key, signing keys) is missing, and gets past that check when all are set.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { DEVELOPMENT_TRACKING_SECRET, productionRequiredEnv } from '../lib/config';
import { endBackgroundJobs } from '../worker/jobs';
import { startService } from '../dev/processes';

const root = path.resolve(__dirname, '..');
const tsx = path.join(root, 'node_modules/.bin/tsx');

const productionEnv = {
  NODE_ENV: 'production',
  DATABASE_URL: process.env.DATABASE_URL ?? 'postgresql://adplatform:adplatform@127.0.0.1:5432/adplatform_test',
  STRIPE_SECRET_KEY: 'sk_test_not_used_by_this_test',
  TRACKING_SIGNING_KEYS: 'prod1:a-production-secret-of-some-length',
  // The worker started below must not take other tests' tasks.
  TEMPORAL_TASK_QUEUE: `fail-closed-${process.pid}`,
};

const processes = [
  { service: 'api', entry: 'api/server.ts', ready: /api listening/, portVariable: 'PORT' },
  { service: 'worker', entry: 'worker/main.ts', ready: /worker ready/, portVariable: 'WORKER_UNUSED_PORT' },
  { service: 'auction', entry: 'auction/server.ts', ready: /auction listening/, portVariable: 'AUCTION_PORT' },
] as const;

/** Runs `entry` to its exit; its exit code and everything it printed. */
function runToExit(entry: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(tsx, [path.join(root, entry)], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      output += d.toString();
    });
    // A process that wrongly starts would never exit: stop it once it says it is up.
    child.stdout.on('data', () => {
      if (/listening|ready/.test(output)) child.kill('SIGKILL');
    });
    child.once('exit', (code) => resolve({ code, output }));
  });
}

// The worker that starts below started an event pipeline on this test's own queue.
afterAll(() => endBackgroundJobs(productionEnv.TEMPORAL_TASK_QUEUE, 'test over', productionEnv.DATABASE_URL));

describe.each(processes)('$entry with NODE_ENV=production', ({ service, entry, ready, portVariable }) => {
  test.each([...productionRequiredEnv(service, productionEnv)])(
    'refuses to start without %s',
    async (variable) => {
      const env: NodeJS.ProcessEnv = { ...process.env, ...productionEnv, PORT: '0', AUCTION_PORT: '0' };
      delete env[variable];
      const { code, output } = await runToExit(entry, env);
      expect(code).not.toBe(0);
      expect(code).not.toBeNull(); // exited by itself, not killed after starting
      expect(output).toContain('refusing to start with NODE_ENV=production');
      expect(output).toContain(variable);
    },
    60_000,
  );

  test('starts with just the variables it uses (the auction needs no Stripe key)', async () => {
    const env: NodeJS.ProcessEnv = { ...productionEnv };
    for (const name of ['DATABASE_URL', 'STRIPE_SECRET_KEY', 'TRACKING_SIGNING_KEYS'] as const) {
      if (!productionRequiredEnv(service, productionEnv).includes(name)) delete env[name];
    }
    const started = await startService({ entry, ready, portVariable, env: { ...env, STRIPE_SECRET_KEY: env.STRIPE_SECRET_KEY ?? '' } });
    await started.stop();
    expect(started.output()).not.toContain('refusing to start');
  }, 90_000);
});

test('an api that leaves the creation saga to the worker (API_CREATION_WORKER=off) needs no Stripe key', async () => {
  const env = { ...productionEnv, API_CREATION_WORKER: 'off', STRIPE_SECRET_KEY: '' };
  expect(productionRequiredEnv('api', env)).not.toContain('STRIPE_SECRET_KEY');
  const started = await startService({ entry: 'api/server.ts', ready: /api listening/, portVariable: 'PORT', env });
  await started.stop();
  expect(started.output()).not.toContain('refusing to start');
}, 90_000);

/**
 * The tracking signing key (hardening round two): outside NODE_ENV development
 * and test there is no built-in key, and the one written in this repository is
 * refused, production or not (a staging box with the public key lets anyone
 * mint view tokens that charge budgets).
 */
describe.each(processes)('$entry outside development and test', ({ entry }) => {
  const { NODE_ENV: _production, TRACKING_SIGNING_KEYS: _keys, ...stagingEnv } = productionEnv;
  test.each([
    ['NODE_ENV unset, no key', {}, 'TRACKING_SIGNING_KEYS must be set'],
    [
      'NODE_ENV=staging, the development key',
      { NODE_ENV: 'staging', TRACKING_SIGNING_KEYS: `dev1:${DEVELOPMENT_TRACKING_SECRET}` },
      'development key published in this repository',
    ],
  ])(
    'refuses to start: %s',
    async (_label, extra, message) => {
      const env: NodeJS.ProcessEnv = { ...process.env, ...stagingEnv, ...extra, PORT: '0', AUCTION_PORT: '0' };
      if (!('NODE_ENV' in extra)) delete env.NODE_ENV;
      if (!('TRACKING_SIGNING_KEYS' in extra)) delete env.TRACKING_SIGNING_KEYS;
      const { code, output } = await runToExit(entry, env);
      expect(code).not.toBe(0);
      expect(code).not.toBeNull();
      expect(output).toContain(message);
    },
    60_000,
  );
});
