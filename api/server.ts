import { createApp } from './app';
import { assertProductionConfig, config } from '../lib/config';
import { createAssetStore } from '../lib/asset-store';
import { createCreativeGenerator } from '../domain/creatives/generator';
import { createDb } from '../lib/db';
import { createTemporalClient } from '../lib/temporal';
import { pruneCounters } from './rate-limit/rate-limiter';

/** The api process. */
assertProductionConfig();
const db = createDb();
const temporal = createTemporalClient();
const server = createApp({ db, temporal, assets: createAssetStore(), creatives: createCreativeGenerator() }).listen(config.api.port, config.api.host, () => {
  console.log(`api listening on http://${config.api.host}:${config.api.port}`);
});

const pruneTimer = setInterval(() => pruneCounters(db).catch(() => undefined), 10 * 60 * 1000);
pruneTimer.unref();

function shutdown() {
  server.close(() => {
    void Promise.allSettled([db.$disconnect(), temporal.connection.close()]).then(() => process.exit(0));
  });
  // Keep-alive sockets would hold close() open.
  server.closeAllConnections();
}
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
