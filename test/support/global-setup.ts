/**
 * Jest global setup. PostgreSQL, ClickHouse and Temporal are started by
 * scripts/bootstrap.sh before jest; here the worker and Stripe emulator of
 * this run start (dev/local-stack.ts).
 */
import { startLocalStack, type LocalStack } from '../../dev/local-stack';

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
  globalThis.__localStack = await startLocalStack('test', { workerLogs: Boolean(process.env.TEST_WORKER_LOGS) });
}
