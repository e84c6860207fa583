/**
 * `npm run reset -- --yes`: the development stores back to empty, for a clean
 * start after earlier runs filled them (the review queue, insights, Temporal's
 * list). PostgreSQL's schema is dropped and migrated again, ClickHouse's
 * database is dropped and created again, and Temporal forgets the workflows of
 * the development task queues and every closed one (test runs end theirs; a
 * test run still going keeps its running workflows). The local asset store and
 * the demo chat's key go too. Only stores on this machine (loopback) are
 * touched, never production's, and only while `npm start` is not running.
 */
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import pLimit from 'p-limit';
import { config } from '../lib/config';
import { createClickhouse } from '../lib/clickhouse/client';
import { identifier } from '../lib/clickhouse/sql';
import { createTemporalClient } from '../lib/temporal';
import { temporalConfig } from '../temporal.config';

const root = path.resolve(__dirname, '..');
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);
const hostOf = (url: string) => new URL(url).hostname;

class Refusal extends Error {}

/** Every store this reset would touch is on this machine, and nothing is serving from them. */
async function checkSafe(): Promise<void> {
  if (process.env.NODE_ENV === 'production') throw new Refusal('refusing to reset in production (NODE_ENV=production)');
  for (const [name, host] of [
    ['DATABASE_URL', hostOf(config.databaseUrl)],
    ['CLICKHOUSE_URL', hostOf(config.clickhouse.url)],
    ['TEMPORAL_ADDRESS', temporalConfig.address.replace(/:\d+$/, '')],
  ]) {
    if (!LOOPBACK.has(host)) throw new Refusal(`refusing to reset ${name} on ${host}: only stores on this machine (loopback) are reset`);
  }
  const api = await fetch(`http://127.0.0.1:${config.api.port}/v1/openapi.json`, { signal: AbortSignal.timeout(1000) }).catch(() => null);
  if (api) throw new Refusal(`the api answers on port ${config.api.port}: stop npm start first`);
}

async function resetPostgres(): Promise<void> {
  const pg = new Client({ connectionString: config.databaseUrl });
  await pg.connect();
  try {
    await pg.query('DROP SCHEMA public CASCADE');
    await pg.query('CREATE SCHEMA public');
  } finally {
    await pg.end();
  }
  run('prisma migrate deploy', [path.join(root, 'node_modules/.bin/prisma'), 'migrate', 'deploy']);
  run('postgres routines', [path.join(root, 'node_modules/.bin/tsx'), path.join(root, 'scripts/pg-routines.ts')]);
}

async function resetClickhouse(): Promise<void> {
  const ch = createClickhouse('default');
  try {
    await ch.command({ query: `DROP DATABASE IF EXISTS ${identifier(config.clickhouse.database)}` });
  } finally {
    await ch.close();
  }
  run('clickhouse schema', [path.join(root, 'node_modules/.bin/tsx'), path.join(root, 'scripts/clickhouse-migrate.ts')]);
}

/** Deletes (a running one is terminated first, by the server) the development queues' workflows and every closed one; returns how many. */
async function resetTemporal(): Promise<number> {
  const temporal = createTemporalClient();
  const { main, creation } = temporalConfig.taskQueues;
  const query = `TaskQueue = '${main}' OR TaskQueue = '${creation}' OR ExecutionStatus != 'Running'`;
  try {
    const limit = pLimit(8);
    const deletes: Promise<unknown>[] = [];
    for await (const run of temporal.workflow.list({ query })) {
      deletes.push(
        limit(() =>
          temporal.workflowService.deleteWorkflowExecution({
            namespace: temporalConfig.namespace,
            workflowExecution: { workflowId: run.workflowId, runId: run.runId },
          }),
        ),
      );
    }
    await Promise.all(deletes);
    return deletes.length;
  } finally {
    await temporal.connection.close();
  }
}

function run(name: string, [command, ...args]: string[]): void {
  const result = spawnSync(command, args, { cwd: root, stdio: ['ignore', 'ignore', 'inherit'], env: process.env });
  if (result.status !== 0) throw new Error(`${name} failed (exit ${result.status})`);
  console.log(`reset: ${name} done`);
}

async function main(): Promise<number> {
  if (!process.argv.includes('--yes')) {
    console.error('usage: npm run reset -- --yes   (empties the development PostgreSQL, ClickHouse and Temporal; see docs/operations.md)');
    return 2;
  }
  await checkSafe();
  await resetPostgres();
  await resetClickhouse();
  console.log(`reset: temporal: ${await resetTemporal()} workflows deleted`);
  if (config.assets.store === 'local') rmSync(config.assets.dir, { recursive: true, force: true });
  // The demo chat's publisher key (dev/demo-chat/main.ts's file): it names a publisher that is gone.
  rmSync(process.env.DEMO_CHAT_KEY_FILE ?? path.join(root, '.data/demo-chat.json'), { force: true });
  console.log('reset: done');
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    console.error(`reset: ${err.message}`);
    process.exit(err instanceof Refusal ? 2 : 1);
  },
);
