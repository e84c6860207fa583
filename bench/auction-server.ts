/**
 * The auction service for the bench, in its own process: the real
 * createAuction() over the real PostgreSQL/ClickHouse, narrowed to the bench's
 * DSPs (BENCH_DSP_IDS) so that whatever else is configured is not called.
 */
import { createAuction } from '../auction/app';
import { createClickhouse } from '../lib/clickhouse/client';
import { createDb } from '../lib/db';

const ids = new Set((process.env.BENCH_DSP_IDS ?? '').split(',').filter(Boolean));
const auction = createAuction({ db: createDb(undefined, 3), clickhouse: createClickhouse(), dspFilter: (d) => ids.has(d.id) });
auction.start().then(() => {
  const server = auction.app.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.send!({ port: typeof address === 'object' && address ? address.port : 0 });
  });
  server.keepAliveTimeout = 65_000;
  process.on('message', async (m) => {
    // 'cpu': report this process's CPU time so the bench can give CPU ms per auction.
    if (m === 'cpu') { process.send!({ cpu: process.cpuUsage() }); return; }
    server.closeAllConnections(); server.close(); await auction.close(); process.exit(0);
  });
});
