/**
 * Slow clients (issue 44, item 7): the api's and the auction's servers cut off a
 * client that sends its headers and then trickles its body, once the configured
 * request timeout passes (408, connection closed), and a dashboard JSON state
 * change without a session is refused before its body is read.
 */
import net from 'node:net';
import { startApiProcess, startAuctionProcess, type ServiceProcess } from '../dev/processes';

const REQUEST_TIMEOUT_MS = 1_500;
const limits = { HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS), HTTP_HEADERS_TIMEOUT_MS: '1000', NODE_ENV: 'test' };

let api: ServiceProcess;
let auction: ServiceProcess;

beforeAll(async () => {
  [api, auction] = await Promise.all([startApiProcess({ ...limits, API_CREATION_WORKER: 'off' }), startAuctionProcess(limits)]);
}, 120_000);

afterAll(async () => {
  await Promise.all([api?.stop(), auction?.stop()]);
});

interface Exchange {
  /** Everything the server sent before it closed the connection. */
  received: string;
  closedAfterMs: number;
}

/**
 * Sends `head` (request line and headers), then one byte of the body every
 * `trickleMs` (none when null) until the server closes the connection; resolves on
 * that close, or when `until(received)` holds.
 */
function slowRequest(port: number, head: string, trickleMs: number | null, until?: (received: string) => boolean): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    let trickle: NodeJS.Timeout | undefined;
    const done = () => {
      clearInterval(trickle);
      resolve({ received, closedAfterMs: Date.now() - started });
    };
    socket.on('connect', () => {
      socket.write(head);
      if (trickleMs !== null) trickle = setInterval(() => socket.writable && socket.write('a'), trickleMs);
    });
    socket.on('data', (d: Buffer) => {
      received += d.toString();
      if (until?.(received)) {
        done();
        socket.destroy();
      }
    });
    socket.on('error', (err) => (received ? done() : reject(err)));
    socket.on('close', done);
  });
}

const head = (method: string, path: string, headers: Record<string, string>) =>
  `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;

test('the api answers 408 and closes a connection whose body trickles past HTTP_REQUEST_TIMEOUT_MS', async () => {
  const { received, closedAfterMs } = await slowRequest(
    api.port,
    head('POST', '/dashboard/login', { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': '2000', 'Sec-Fetch-Site': 'same-origin' }),
    100,
  );
  expect(received).toMatch(/^HTTP\/1\.1 408 /);
  expect(closedAfterMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
  // Node's default would have held it for five minutes.
  expect(closedAfterMs).toBeLessThan(30_000);
}, 60_000);

test('the auction answers 408 and closes a connection whose body trickles past HTTP_REQUEST_TIMEOUT_MS', async () => {
  const { received, closedAfterMs } = await slowRequest(
    auction.port,
    head('POST', '/v1/ad_requests', { 'Content-Type': 'application/json', 'Content-Length': '5000', Authorization: 'Bearer pk_not_a_key' }),
    100,
  );
  // The auction refuses the key at once (401), but the body still trickling in is cut off by the timeout.
  expect(received).toMatch(/^HTTP\/1\.1 401 /);
  expect(received).toMatch(/HTTP\/1\.1 408 Request Timeout\r\nConnection: close\r\n\r\n$/);
  expect(closedAfterMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
  expect(closedAfterMs).toBeLessThan(30_000);
}, 60_000);

test('a dashboard JSON post without a session gets 401 auth_required before it sends any of its body', async () => {
  const { received } = await slowRequest(
    api.port,
    head('POST', '/dashboard/api/campaigns/00000000-0000-4000-8000-000000000000/pause', {
      'Content-Type': 'application/json',
      'Content-Length': '100000',
      Cookie: 'dashboard_session=not-a-session',
    }),
    null,
    (text) => /\r\n\r\n[\s\S]*\}\s*$/.test(text),
  );
  const [status, ...rest] = received.split('\r\n');
  expect(status).toMatch(/^HTTP\/1\.1 401 /);
  expect(rest.map((line) => line.toLowerCase())).toContain('connection: close');
  const body = JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4)) as { error: { code: string; type: string } };
  expect(body.error.code).toBe('auth_required');
}, 60_000);
