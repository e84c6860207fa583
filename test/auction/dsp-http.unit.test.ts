import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CallFailure, Deadline, postJson } from '../../auction/dsp/http';

/** auction/dsp/http.ts: calls end at their deadline, also those still queued for a pooled connection. */
describe('postJson', () => {
  let server: http.Server;
  let url: string;
  beforeAll(async () => {
    // Answers /fast at once; holds /slow until the connection is closed.
    server = http.createServer((req, res) => {
      req.resume();
      if (req.url === '/fast')
        req.on('end', () => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{"ok":true}');
        });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('returns the status, the body and the latency', async () => {
    const answer = await postJson(`${url}/fast`, { 'content-type': 'application/json' }, '{}', 1000);
    expect(answer).toEqual({ status: 200, body: '{"ok":true}', latencyMs: expect.any(Number) });
  });

  it('a header value HTTP refuses is not sent: invalid_request (not the DSP failing)', async () => {
    const call = postJson(`${url}/fast`, { 'content-type': 'application/json', 'user-agent': 'Mozilla/5.0\u0001' }, '{}', 1000);
    await expect(call).rejects.toBeInstanceOf(CallFailure);
    await expect(call).rejects.toMatchObject({ reason: 'invalid_request' });
  });

  it('ends every call of a shared deadline when it passes, queued ones included', async () => {
    const deadline = new Deadline(300);
    const started = performance.now();
    // More calls than the agent's 64 connections to one origin: the rest wait in undici's queue.
    const results = await Promise.allSettled(Array.from({ length: 80 }, () => postJson(`${url}/slow`, {}, '{}', deadline)));
    const elapsed = performance.now() - started;
    deadline.clear();
    expect(elapsed).toBeLessThan(1500);
    for (const r of results) {
      expect(r.status).toBe('rejected');
      const err = (r as PromiseRejectedResult).reason;
      expect(err).toBeInstanceOf(CallFailure);
      expect(err.reason).toBe('timeout');
    }
  });

  it('fails a call at once when its deadline has already passed', async () => {
    const deadline = new Deadline(1);
    await new Promise((r) => setTimeout(r, 20));
    await expect(postJson(`${url}/fast`, {}, '{}', deadline)).rejects.toMatchObject({ reason: 'timeout' });
  });

  it('names an unreachable DSP', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    await expect(postJson(`http://127.0.0.1:${port}/bid`, {}, '{}', 1000)).rejects.toMatchObject({ reason: 'unreachable' });
  });
});
