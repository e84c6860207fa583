/**
 * The auction service for the bench, in its own process: the real
 * createAuction() over the real PostgreSQL/ClickHouse, narrowed to the bench's
 * DSPs (BENCH_DSP_IDS) so that whatever else is configured is not called.
 */
import type { AddressInfo } from 'node:net';
import { createAuction } from '../auction/app';
import { createClickhouse } from '../lib/clickhouse/client';
import { createDb } from '../lib/db';
import { serveBenchControl } from './child-control';
import { startMetricsServer } from '../lib/metrics-server';

const ids = new Set((process.env.BENCH_DSP_IDS ?? '').split(',').filter(Boolean));
const auction = createAuction({ db: createDb(undefined, 3), clickhouse: createClickhouse(), dspFilter: (d) => ids.has(d.id) });
auction
  .start()
  .then(async () => {
    const metrics = await startMetricsServer(auction.deps.metrics.registry, { host: '127.0.0.1', port: 0 });
    const server = auction.app.listen(0, '127.0.0.1', () => {
      serveBenchControl({ port: (server.address() as AddressInfo).port, metricsUrl: metrics.url }, 'auction', async () => {
        server.closeAllConnections();
        server.close();
        await metrics.close();
        await auction.close();
      });
    });
    server.keepAliveTimeout = 65_000;
  })
  .catch((err: unknown) => {
    console.error(`bench auction failed to start: ${(err as Error).message}`);
    process.exit(1);
  });
