/** dev/answering.ts: what `npm start` waits for before it prints the URLs. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { whenAnswering } from '../dev/answering';

const servers: Server[] = [];
afterAll(() => Promise.all(servers.map((s) => new Promise((r) => s.close(r)))));

/** A server that answers `status` once `ready()` says so (before: 503, as a service still starting). */
async function server(ready: () => boolean): Promise<string> {
  const s = createServer((_req, res) => res.writeHead(ready() ? 200 : 503).end());
  servers.push(s);
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}/healthz`;
}

test('resolves only once every URL answers 2xx', async () => {
  let ready = false;
  const up = await server(() => true);
  const starting = await server(() => ready);
  let done = false;
  const waiting = whenAnswering([up, starting], () => false, 10).then((v) => ((done = true), v));
  // Polled several times while one of them is not ready: still waiting.
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(done).toBe(false);
  ready = true;
  await expect(waiting).resolves.toBe(true);
});

test('a URL nothing listens on keeps it waiting; stopping ends the wait with false', async () => {
  let stop = false;
  const waiting = whenAnswering(['http://127.0.0.1:1/healthz'], () => stop, 10);
  stop = true;
  await expect(waiting).resolves.toBe(false);
});
