/**
 * The compiled services (docs/deploy.md): `npm run build` makes dist/, and
 * `npm run serve -- api|auction|worker` (node dist/scripts/serve.js, what the image runs)
 * starts one service with node alone, over the stores of this environment. Each answers
 * its health check and serves metrics on its internal port, and on SIGTERM exits 0;
 * `serve migrate` brings new databases to the current schema.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { createClickhouse } from '../../lib/clickhouse/client';
import { sql } from '../../lib/clickhouse/sql';
import { config } from '../../lib/config';
import { endBackgroundJobs } from '../../worker/jobs';
import { workflowSource } from '../../worker/workflow-source';
import { dist, ensureBuild, root, serveCompiled } from './compiled-build';

beforeAll(() => ensureBuild(), 240_000);

/** SIGTERM; the exit code (SIGKILL past 20 s makes it null and fails the test). */
function terminate(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.once('exit', (code) => {
      clearTimeout(force);
      resolve(code);
    });
    child.kill('SIGTERM');
  });
}

async function expectMetrics(output: string, service: string) {
  const url = new RegExp(`${service} metrics on (http://\\S+)`).exec(output)?.[1];
  expect(url).toBeDefined();
  expect(new URL(url!).hostname).toBe('127.0.0.1');
  const res = await fetch(url!);
  expect(res.status).toBe(200);
  expect(await res.text()).toMatch(new RegExp(`^# HELP ${service}_`, 'm'));
}

test.each(['api', 'auction'] as const)('%s: starts compiled, answers /healthz, serves metrics, exits 0 on SIGTERM', async (service) => {
  const running = await serveCompiled(service);
  try {
    const health = await fetch(`${running.url}/healthz`);
    expect(health.status).toBe(200);
    await expectMetrics(running.output(), service);
    // The api's creation worker runs the workflows npm run build bundled (worker/creation-worker.ts).
    if (service === 'api') expect(running.output()).toMatch(/api creation worker ready/);
  } finally {
    expect(await terminate(running.child)).toBe(0);
  }
});

test('worker: starts compiled on the prebuilt workflow bundle, serves metrics, exits 0 on SIGTERM', async () => {
  expect(workflowSource(path.join(dist, 'worker'))).toEqual({ workflowBundle: { codePath: path.join(dist, 'workflow-bundle.js') } });
  // A task queue of its own: it runs no other test's workflows, and its job runs are ended below.
  const taskQueue = `compiled-worker-${randomUUID()}`;
  const running = await serveCompiled('worker', { TEMPORAL_TASK_QUEUE: taskQueue, WORKER_NICE: '0' });
  try {
    await expectMetrics(running.output(), 'worker');
  } finally {
    expect(await terminate(running.child)).toBe(0);
    await endBackgroundJobs(taskQueue, 'compiled-services test done');
  }
});

test('serve migrate: a new PostgreSQL database and ClickHouse database get every migration, routine and table', async () => {
  const name = `deploycheck_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const admin = new Client({ connectionString: config.databaseUrl });
  await admin.connect();
  const ch = createClickhouse('default');
  await admin.query(`CREATE DATABASE ${name}`);
  try {
    const url = new URL(config.databaseUrl);
    url.pathname = `/${name}`;
    const child = spawn(process.execPath, [path.join(dist, 'scripts/serve.js'), 'migrate'], {
      cwd: root,
      env: { ...process.env, NODE_ENV: 'test', DATABASE_URL: url.toString(), CLICKHOUSE_DATABASE: name },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    expect([await new Promise((resolve) => child.once('exit', resolve)), output]).toEqual([0, expect.stringContaining('migrate: clickhouse schema done')]);
    const migrations = readdirSync(path.join(dist, 'prisma/migrations'), { withFileTypes: true }).filter((e) => e.isDirectory()).length;
    const applied = new Client({ connectionString: url.toString() });
    await applied.connect();
    try {
      const { rows } = await applied.query<{ n: number }>('SELECT count(*)::int AS n FROM _prisma_migrations WHERE finished_at IS NOT NULL');
      expect(rows[0].n).toBe(migrations);
      // The routines, shipped beside the compiled code that calls them (scripts/routines.ts).
      const routines = await applied.query("SELECT proname FROM pg_proc WHERE proname IN ('record_deliveries', 'serving_block') ORDER BY proname");
      expect(routines.rows).toEqual([{ proname: 'record_deliveries' }, { proname: 'serving_block' }]);
    } finally {
      await applied.end();
    }
    const tables = await (
      await ch.query({ query: sql`SELECT name FROM system.tables WHERE database = ${name}`, format: 'JSONEachRow' })
    ).json<{ name: string }>();
    expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(['delivery_events', 'collected_events', 'auctions', 'auction_bids']));
  } finally {
    await ch.command({ query: `DROP DATABASE IF EXISTS ${name}` });
    await ch.close();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
});

test('serve: an unknown service is refused with the usage', async () => {
  const child = spawn(process.execPath, [path.join(dist, 'scripts/serve.js'), 'nope'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const code = await new Promise((resolve) => child.once('exit', resolve));
  expect(code).toBe(2);
  expect(err).toContain('usage: npm run serve -- api|auction|worker|migrate');
});

test('the compiled code requires production dependencies only (tsx, esbuild and test tools are devDependencies)', () => {
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; scripts: Record<string, string> };
  expect(pkg.scripts.serve).toBe('node dist/scripts/serve.js');
  const required = new Set<string>();
  for (const file of readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js') && f !== 'workflow-bundle.js')) {
    for (const [, spec] of readFileSync(path.join(dist, file), 'utf8').matchAll(/(?:require|import)\(["']([^"'.][^"']*)["']\)/g)) {
      if (spec.startsWith('node:')) continue;
      required.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
    }
  }
  expect(required.size).toBeGreaterThan(10);
  expect([...required].filter((name) => !(name in pkg.dependencies))).toEqual([]);
  for (const dev of ['tsx', 'esbuild', 'jest', 'typescript']) expect(pkg.dependencies[dev]).toBeUndefined();
});
