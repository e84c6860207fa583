/**
 * Jest global setup. PostgreSQL, ClickHouse and Temporal are started by
 * scripts/bootstrap.sh before jest; here the worker and Stripe emulator of
 * this run start (dev/local-stack.ts).
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startLocalStack, type LocalStack } from '../../dev/local-stack';
import { closeDb, createDb } from '../../lib/db';
import { bundleWorkflows } from '../../worker/workflow-source';

declare global {
  var __localStack: LocalStack | undefined;
}

export default async function globalSetup() {
  process.env.NODE_ENV = 'test';
  // Image downloads in tests come from loopback servers (never any other address).
  process.env.IMAGE_FETCH_ALLOW_LOOPBACK = '1';
  // Every service a test starts serves its metrics on a free port of its own: many run side by side.
  process.env.METRICS_PORT = '0';
  process.env.AUCTION_METRICS_PORT = '0';
  process.env.WORKER_METRICS_PORT = '0';
  // Production gives up on opening a PostgreSQL connection after 5 s; a suite sharing the machine with
  // CPU-bound work can take longer to be served one (issue 44), and no test is about that bound.
  process.env.PG_CONNECT_TIMEOUT_MS ??= '30000';
  // One workflow bundle for every worker and api process of the run (worker/workflow-source.ts), not one each.
  process.env.TEMPORAL_WORKFLOW_BUNDLE = await writeWorkflowBundle();
  await pauseEarlierRunsCampaigns();
  globalThis.__localStack = await startLocalStack('test', { workerLogs: Boolean(process.env.TEST_WORKER_LOGS) });
}

/**
 * The auction's catalog is every servable campaign in the test database, and a
 * machine that ran the suite before keeps what those runs left active (thousands
 * of near-identical fixture groups, where retrieval is approximate). Tests that
 * expect their own ad to be found or to win assume the catalog is what this run
 * made, as on a fresh machine: the earlier runs' campaigns are paused first.
 */
async function pauseEarlierRunsCampaigns(): Promise<void> {
  const db = createDb(undefined, 1);
  try {
    await db.campaign.updateMany({ where: { status: 'active' }, data: { status: 'paused' } });
  } finally {
    await closeDb(db);
  }
}

/** This run's workflow bundle, in a file of its own (global teardown removes it). */
async function writeWorkflowBundle(): Promise<string> {
  const file = path.join(tmpdir(), `adplatform-workflows-${process.pid}.js`);
  writeFileSync(file, await bundleWorkflows());
  return file;
}
