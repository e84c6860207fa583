/**
 * The bare fan-out floor for bench:auction: a minimal Node HTTP service that
 * forwards the request body to the same DSPs (native protocol, pooled
 * keep-alive connections) and answers with the highest bid. Nothing else: no
 * validation, no auth, no index, no logging.
 */
import http from 'node:http';
import { Agent, request } from 'undici';

const dsps = (process.env.FLOOR_DSPS ?? '').split(',').filter(Boolean);
const agent = new Agent({ keepAliveTimeout: 30_000, connections: 64 });

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', async () => {
    const body = Buffer.concat(chunks);
    const answers = await Promise.all(dsps.map(async (url) => {
      try {
        const r = await request(url, { method: 'POST', body, dispatcher: agent, headers: { 'content-type': 'application/json', authorization: 'Bearer bench' } });
        return (await r.body.json()) as { data?: { bid?: number } };
      } catch { return null; }
    }));
    const best = answers.reduce<{ bid: number } | null>((top, a) => (a?.data?.bid !== undefined && (!top || a.data.bid > top.bid) ? { bid: a.data.bid } : top), null);
    const text = JSON.stringify({ ad: best });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.send!({ port: typeof address === 'object' && address ? address.port : 0 });
});
process.on('message', (m) => {
  if (m === 'cpu') { process.send!({ cpu: process.cpuUsage() }); return; }
  server.closeAllConnections(); server.close(() => process.exit(0));
});
