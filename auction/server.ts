import { createClickhouse } from '../lib/clickhouse/client';
import { assertStartupConfig, config } from '../lib/config';
import { createDb } from '../lib/db';
import { createAuction } from './app';
import { startMetricsServer } from '../lib/metrics-server';
import { httpServerLimits, listenWithLimits } from '../lib/http/server';

/**
 * The standalone auction service (no Temporal, no per-request database query).
 * SIGTERM/SIGINT: stop accepting, finish in-flight auctions, drain the
 * ClickHouse log batch, exit.
 */
async function main() {
  assertStartupConfig('auction');
  const db = createDb(undefined, 3);
  const clickhouse = createClickhouse();
  const auction = createAuction({ db, clickhouse });
  await auction.start();
  const server = listenWithLimits(auction.app, config.auction.port, config.api.host, httpServerLimits('auction'), () => {
    console.log(`auction listening on http://${config.api.host}:${config.auction.port}`);
  });
  const metrics = await startMetricsServer(auction.deps.metrics.registry, { host: config.metrics.host, port: config.metrics.auctionPort });
  console.log(`auction metrics on ${metrics.url}`);
  let stopping = false;
  const shutdown = () => {
    if (stopping) return;
    stopping = true;
    const closeAll = async () => {
      await metrics.close();
      await auction.close();
      await clickhouse.close();
      await db.$disconnect();
    };
    server.close(() => {
      closeAll().then(
        () => process.exit(0),
        (err: unknown) => {
          console.error(`auction shutdown failed: ${(err as Error).message}`);
          process.exit(1);
        },
      );
    });
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), 3000).unref();
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

main().catch((err) => {
  console.error(`auction failed to start: ${(err as Error).message}`);
  process.exit(1);
});
