/**
 * The bare fan-out floor for bench:auction: a minimal Node HTTP service that
 * forwards the request body to the same DSPs (native protocol, through the
 * auction's own pooled keep-alive agent, auction/dsp/http.ts) and answers with
 * the highest bid. Nothing else: no validation, no auth, no index, no logging.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { dspAgent } from '../auction/dsp/http';
import { serveBenchControl } from './child-control';

const dsps = (process.env.FLOOR_DSPS ?? '').split(',').filter(Boolean);

async function bestBid(body: Buffer) {
  const answers = await Promise.all(
    dsps.map(async (url) => {
      try {
        const r = await request(url, {
          method: 'POST',
          body,
          dispatcher: dspAgent,
          headers: { 'content-type': 'application/json', authorization: 'Bearer bench' },
        });
        return (await r.body.json()) as { data?: { bid?: number } };
      } catch {
        return null;
      }
    }),
  );
  return answers.reduce<{ bid: number } | null>((top, a) => (a?.data?.bid !== undefined && (!top || a.data.bid > top.bid) ? { bid: a.data.bid } : top), null);
}

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    // Each DSP's failure is a null answer: the best bid never rejects.
    void bestBid(Buffer.concat(chunks)).then((best) => {
      const text = JSON.stringify({ ad: best });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    });
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  serveBenchControl(
    { port: (server.address() as AddressInfo).port },
    'floor',
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
});
