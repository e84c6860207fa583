/**
 * `npm run reset -- --yes` (scripts/reset.ts) on stores of this test's own: a
 * PostgreSQL database, a ClickHouse database, a private Temporal server, an
 * asset folder and a demo chat key file. Afterwards each is empty and migrated,
 * Temporal has lost the development queue's workflows and the closed ones but
 * kept a test run's running one; stores off this machine are refused untouched.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client as PgClient } from 'pg';
import { Client, Connection } from '@temporalio/client';
import { config } from '../../lib/config';
import { createClickhouse } from '../../lib/clickhouse/client';
import { sql } from '../../lib/clickhouse/sql';
import { startPrivateTemporal, type PrivateTemporal } from '../../dev/private-temporal';
import { freePort } from '../../dev/processes';
import { until } from '../support/wait';

jest.setTimeout(180_000);

const root = path.resolve(__dirname, '../..');
const name = `resetcheck_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
const scratch = mkdtempSync(path.join(tmpdir(), 'reset-'));
const devQueue = `reset-dev-${randomUUID()}`;
let temporal: PrivateTemporal;
let databaseUrl: string;

beforeAll(async () => {
  temporal = await startPrivateTemporal();
  const url = new URL(config.databaseUrl);
  url.pathname = `/${name}`;
  databaseUrl = url.toString();
  const admin = new PgClient({ connectionString: config.databaseUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
});

afterAll(async () => {
  const admin = new PgClient({ connectionString: config.databaseUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
  const ch = createClickhouse('default');
  await ch.command({ query: `DROP DATABASE IF EXISTS ${name}` });
  await ch.close();
  await temporal?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

/** Runs the reset with the environment pointing at this test's stores; its exit code and output. */
async function reset(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  const child = spawn(path.join(root, 'node_modules/.bin/tsx'), [path.join(root, 'scripts/reset.ts'), ...args], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: 'development',
      DATABASE_URL: databaseUrl,
      CLICKHOUSE_DATABASE: name,
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_TASK_QUEUE: devQueue,
      ASSET_DIR: path.join(scratch, 'assets'),
      DEMO_CHAT_KEY_FILE: path.join(scratch, 'demo-chat.json'),
      PORT: String(await freePort()),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, output };
}

test('without --yes it prints its usage and touches nothing (exit 2); a store off this machine is refused (exit 2)', async () => {
  expect(await reset([])).toEqual({ code: 2, output: expect.stringContaining('usage: npm run reset -- --yes') });
  // Refused before any connection is made: nothing is sent to that address.
  const remote = await reset(['--yes'], { DATABASE_URL: 'postgresql://u:p@db.invalid:5432/prod' });
  expect(remote).toEqual({ code: 2, output: expect.stringContaining('refusing to reset DATABASE_URL on db.invalid') });
});

test('every store emptied and migrated again; Temporal keeps only what a test run still runs', async () => {
  // What earlier runs left: a table and rows in PostgreSQL, a table in ClickHouse, assets, a demo chat key.
  const pg = new PgClient({ connectionString: databaseUrl });
  await pg.connect();
  await pg.query('CREATE TABLE leftover (id int); INSERT INTO leftover VALUES (1)');
  await pg.end();
  const ch = createClickhouse('default');
  await ch.command({ query: `CREATE DATABASE ${name}` });
  await ch.command({ query: `CREATE TABLE ${name}.leftover (id UInt8) ENGINE = Memory` });
  mkdirSync(path.join(scratch, 'assets'), { recursive: true });
  writeFileSync(path.join(scratch, 'assets', 'old.png'), 'x');
  writeFileSync(path.join(scratch, 'demo-chat.json'), '{}');
  // Workflows: one waiting on the development queue, one closed, one a test run is still running.
  const client = new Client({ connection: await Connection.connect({ address: temporal.address }) });
  const start = (taskQueue: string) => client.workflow.start('leftoverWorkflow', { taskQueue, workflowId: `leftover-${randomUUID()}` });
  const dev = await start(devQueue);
  const closed = await start(`adplatform-test-${randomUUID()}`);
  await closed.terminate('done');
  const testRun = await start(`adplatform-test-${randomUUID()}`);

  const run = await reset(['--yes']);
  expect(run).toEqual({ code: 0, output: expect.stringContaining('reset: done') });
  expect(run.output).toContain('reset: temporal: 2 workflows deleted');

  const migrated = new PgClient({ connectionString: databaseUrl });
  await migrated.connect();
  try {
    expect((await migrated.query("SELECT 1 FROM pg_tables WHERE tablename = 'leftover'")).rowCount).toBe(0);
    const folders = readdirSync(path.join(root, 'prisma/migrations'), { withFileTypes: true }).filter((e) => e.isDirectory()).length;
    expect((await migrated.query('SELECT count(*)::int AS n FROM _prisma_migrations WHERE finished_at IS NOT NULL')).rows[0].n).toBe(folders);
    expect((await migrated.query("SELECT 1 FROM pg_proc WHERE proname = 'record_deliveries'")).rowCount).toBe(1);
    expect((await migrated.query('SELECT count(*)::int AS n FROM organizations')).rows[0].n).toBe(0);
  } finally {
    await migrated.end();
  }
  const tables = (
    await (await ch.query({ query: sql`SELECT name FROM system.tables WHERE database = ${name}`, format: 'JSONEachRow' })).json<{ name: string }>()
  ).map((t) => t.name);
  await ch.close();
  expect(tables).not.toContain('leftover');
  expect(tables).toEqual(expect.arrayContaining(['delivery_events', 'auctions']));
  expect(existsSync(path.join(scratch, 'assets'))).toBe(false);
  expect(existsSync(path.join(scratch, 'demo-chat.json'))).toBe(false);

  const gone = async (handle: typeof dev) =>
    handle.describe().then(
      () => false,
      (err: Error) => err.name === 'WorkflowNotFoundError',
    );
  await until(async () => (await gone(dev)) && (await gone(closed)), 'the development and closed workflows deleted');
  expect((await testRun.describe()).status.name).toBe('RUNNING');
  await testRun.terminate('test done');
  await client.connection.close();
});
