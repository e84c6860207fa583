/**
 * `npm run serve -- <service>`: one compiled service (dist/, `npm run build`) with node alone,
 * over the stores the environment names (lib/config.ts, docs/configuration.md). Run as many
 * copies of each as the load needs (docs/deploy.md).
 *
 * - api | auction | worker: the service, with its node flags (dev/node-flags.ts: the same
 *   as `npm start` and the benchmarks). SIGTERM and SIGINT are passed on, so the service
 *   shuts down its own way; this process exits with the service's code.
 * - migrate: the schema changes, once per release before the services roll: Prisma's
 *   migrations, the PostgreSQL routines, the ClickHouse tables (each idempotent).
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import path from 'node:path';
import { SERVICE_NODE_FLAGS } from '../dev/node-flags';

const dist = path.resolve(__dirname, '..');

const SERVICES: Record<string, string> = {
  api: 'api/server.js',
  auction: 'auction/server.js',
  worker: 'worker/main.js',
};

/** The Prisma CLI's script (a production dependency: migrations run from the image). */
function prismaCli(): string {
  const pkg = require.resolve('prisma/package.json', { paths: [dist] });
  return path.join(path.dirname(pkg), 'build', 'index.js');
}

const migrateSteps = (): { name: string; args: string[]; cwd?: string }[] => [
  // From dist/, where the built prisma.config.mjs finds prisma/schema.prisma and prisma/migrations.
  { name: 'prisma migrate deploy', args: [prismaCli(), 'migrate', 'deploy', '--config', 'prisma.config.mjs'], cwd: dist },
  { name: 'postgres routines', args: [path.join(dist, 'scripts/pg-routines.js')] },
  { name: 'clickhouse schema', args: [path.join(dist, 'scripts/clickhouse-migrate.js')] },
];

/** Runs node with `args`; resolves with the exit code (128 + signal number for a signal). */
function run(args: string[], cwd = dist): Promise<number> {
  const child = spawn(process.execPath, args, { cwd, stdio: 'inherit' });
  const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
  const handlers = (['SIGTERM', 'SIGINT', 'SIGHUP'] as const).map((signal) => [signal, forward(signal)] as const);
  for (const [signal, handler] of handlers) process.on(signal, handler);
  return new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      for (const [s, handler] of handlers) process.off(s, handler);
      resolve(code ?? 128 + (signal ? constants.signals[signal] : 0));
    });
  });
}

async function migrate(): Promise<number> {
  for (const step of migrateSteps()) {
    const code = await run(step.args, step.cwd);
    if (code !== 0) {
      console.error(`migrate: ${step.name} failed (exit ${code})`);
      return code;
    }
    console.log(`migrate: ${step.name} done`);
  }
  return 0;
}

async function main(service: string | undefined): Promise<number> {
  if (service === 'migrate') return migrate();
  const entry = service ? SERVICES[service] : undefined;
  if (!service || !entry) {
    console.error(`usage: npm run serve -- ${[...Object.keys(SERVICES), 'migrate'].join('|')}`);
    return 2;
  }
  return run([...(SERVICE_NODE_FLAGS[service] ?? []), path.join(dist, entry)]);
}

main(process.argv[2]).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`serve failed: ${(err as Error).message}`);
    process.exit(1);
  },
);
