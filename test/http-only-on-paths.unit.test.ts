/**
 * A hot router mounted with onlyOnPaths (lib/http/operations.ts) answers its operations' paths
 * as Express would match them (any case, one trailing slash), and every other request passes
 * it untouched.
 */
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { Router } from 'express';
import { errorHandler } from '../lib/http/errors';
import { defineOperation, mountOperations, onlyOnPaths } from '../lib/http/operations';

const pixel = defineOperation({
  id: 'pixel',
  method: 'get',
  path: '/t/view',
  tag: 'test',
  auth: 'none',
  summary: 'test',
  success: { status: 200, description: 'ok' },
  handle: () => ({ from: 'pixel' }),
});

let server: http.Server;
let base: string;
/** Paths the hot router's own middleware saw. */
const entered: string[] = [];

beforeAll(async () => {
  const app = express();
  const hot = Router();
  hot.use((req, _res, next) => {
    entered.push(req.path);
    next();
  });
  hot.use(mountOperations([pixel]));
  app.use(onlyOnPaths([pixel], hot));
  app.use((_req, res) => res.status(404).json({ from: 'rest' }));
  app.use(errorHandler);
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

test('its paths reach the router, in any case and with one trailing slash; other paths never enter it', async () => {
  for (const path of ['/t/view', '/T/View', '/t/view/', '/t/view?token=x']) {
    const res = await fetch(base + path);
    expect({ path, status: res.status, body: await res.json() }).toEqual({ path, status: 200, body: { from: 'pixel' } });
  }
  for (const path of ['/t/views', '/t/view//', '/t', '/other']) {
    const res = await fetch(base + path);
    expect({ path, status: res.status, body: await res.json() }).toEqual({ path, status: 404, body: { from: 'rest' } });
  }
  // A method the path does not take enters the router too (its 405); nothing else did.
  expect((await fetch(`${base}/t/view`, { method: 'DELETE' })).status).toBe(405);
  expect(entered).toEqual(['/t/view', '/T/View', '/t/view/', '/t/view', '/t/view']);
});
