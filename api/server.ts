import { apiProcessDeps, createApp } from './app';
import { startMetricsServer } from '../lib/metrics-server';
import { httpServerLimits, listenWithLimits } from '../lib/http/server';
import { assertStartupConfig, config } from '../lib/config';
import { closeDb, createDb } from '../lib/db';
import { closeWithin } from '../lib/deadline';
import { createTemporalClient } from '../lib/temporal';
import { pruneCounters } from '../domain/rate-limits/sliding-window';
import { startApiCreationWorker } from '../worker/creation-worker';

/** The api process. */
assertStartupConfig('api');
const db = createDb();
const temporal = createTemporalClient();
const { deps, metrics, delivery } = apiProcessDeps(db, temporal);
// Campaign creates run their saga here, started eagerly (worker/creation-worker.ts); API_CREATION_WORKER=off leaves them to the worker process.
const creationWorker = config.api.creationWorker ? startApiCreationWorker(db, temporal, metrics.registry) : undefined;
const server = listenWithLimits(createApp({ ...deps, eagerStart: creationWorker }), config.api.port, config.api.host, httpServerLimits('api'), () => {
  console.log(`api listening on http://${config.api.host}:${config.api.port}`);
});
const metricsServer = startMetricsServer(metrics.registry, { host: config.metrics.host, port: config.metrics.apiPort });
metricsServer.then(
  (m) => console.log(`api metrics on ${m.url}`),
  (err: Error) => {
    console.error(`api: metrics port ${config.metrics.apiPort} unavailable: ${err.message}`);
    process.exit(1);
  },
);

const pruneTimer = setInterval(() => void pruneCounters(db).catch(() => undefined), 10 * 60 * 1000);
pruneTimer.unref();

/** Stop taking requests, then let background writes finish and close; every step bounded. */
async function shutdown() {
  const ms = config.timeouts.closeMs;
  const closed = new Promise((resolve) => server.close(resolve));
  // Keep-alive sockets would hold close() open.
  server.closeAllConnections();
  await closeWithin(ms, 'http server close', () => closed);
  await closeWithin(ms, 'metrics server close', async () => (await metricsServer).close());
  // Sagas it is running finish first (bounded); a cut one is taken over by the worker process.
  await creationWorker?.close();
  // Answered deliveries are committed (the worker exports them).
  await delivery.close();
  await closeDb(db, ms);
  await closeWithin(ms, 'temporal connection close', () => temporal.connection.close());
  process.exit(0);
}
process.once('SIGINT', () => void shutdown());
process.once('SIGTERM', () => void shutdown());
