import express from 'express';
import { assertProductionConfig, config } from '../lib/config';

assertProductionConfig();

/**
 * The standalone auction service (no Temporal on the hot path). For now it
 * answers health checks; the chat-host auction API lands with its own issue.
 */
const app = express();
app.disable('x-powered-by');
app.get('/healthz', (_req, res) => { res.json({ ok: true }); });
app.use((_req, res) => {
  res.status(404).json({ error: { message: 'Unrecognized request URL', type: 'invalid_request_error', param: null, code: 'not_found' } });
});

const server = app.listen(config.auction.port, config.api.host, () => {
  console.log(`auction listening on http://${config.api.host}:${config.auction.port}`);
});
const shutdown = () => { server.close(() => process.exit(0)); server.closeAllConnections(); };
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
