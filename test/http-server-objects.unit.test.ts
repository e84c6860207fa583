/**
 * The api's and the auction's servers (lib/http/server.ts listenWithLimits) make each
 * request and response with the Express app's prototypes already, so Express never changes a
 * live object's prototype (that change cost the view pixel about half its CPU), and
 * everything Express gives a handler still works.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { listenWithLimits } from '../lib/http/server';

const limits = { requestTimeoutMs: 5_000, headersTimeoutMs: 5_000, keepAliveTimeoutMs: 1_000, maxConnections: 10 };

let server: http.Server;
let port: number;
/** Whether each request reached the server's listeners already carrying the app's prototypes. */
const bornExpress: boolean[] = [];

beforeAll(async () => {
  const app = express();
  app.get('/json', (req, res) => {
    res.json({ q: req.query.q, same_app: req.app === app && res.app === app, ip_is_string: typeof req.ip === 'string' });
  });
  app.get('/away', (_req, res) => res.redirect(302, 'https://example.test/next'));
  await new Promise<void>((resolve) => {
    server = listenWithLimits(app, 0, '127.0.0.1', limits, resolve);
  });
  // Runs before Express's own listener: the objects as the server made them.
  server.prependListener('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    bornExpress.push(Object.getPrototypeOf(req) === app.request && Object.getPrototypeOf(res) === app.response);
  });
  port = (server.address() as AddressInfo).port;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const get = (path: string) =>
  new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      })
      .on('error', reject);
  });

test("requests and responses are made with the app's prototypes, and Express's request and response API works on them", async () => {
  const json = await get('/json?q=shoes');
  expect(json.status).toBe(200);
  expect(json.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(JSON.parse(json.body)).toEqual({ q: 'shoes', same_app: true, ip_is_string: true });

  const away = await get('/away');
  expect(away.status).toBe(302);
  expect(away.headers.location).toBe('https://example.test/next');

  expect(bornExpress).toEqual([true, true]);
});
