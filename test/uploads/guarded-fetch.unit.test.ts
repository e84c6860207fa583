import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { toErrorResponse } from '../../lib/http/errors';
import { domainErrorOf } from '../support/domain-error';
import { fetchImageBytes } from '../../domain/uploads/guarded-fetch';
import { MAX_UPLOAD_BYTES } from '../../domain/uploads/image-inspect';

// Every request in this file goes to a loopback server started here.
// Non-loopback addresses only ever come out of injected resolvers, and the
// guard must refuse them before any socket is opened.

let server: http.Server;
let port: number;
let png: Buffer;
let requests: { url: string; host: string | undefined }[] = [];
/** What the /huge handler managed to write before the client went away. */
let huge: { written: number; finished: boolean; closed: Promise<void> } | null = null;
/** The /never and /drip exchanges: bytes written, and when the connection closed (the server never closes it). */
let slow: { written: number; closed: Promise<void> } | null = null;
const HUGE_TOTAL = 64 * 1024 * 1024;

const requestSpy = jest.spyOn(http, 'request');
const httpsRequestSpy = jest.spyOn(https, 'request');

beforeAll(async () => {
  png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#f80' } })
    .png()
    .toBuffer();
  server = http.createServer((req, res) => {
    requests.push({ url: req.url ?? '', host: req.headers.host });
    switch (req.url) {
      case '/image.png':
        return res.writeHead(200, { 'content-type': 'image/png' }).end(png);
      case '/redirect':
        return res.writeHead(302, { location: '/image.png' }).end();
      case '/missing':
        return res.writeHead(404).end('not found');
      case '/error':
        return res.writeHead(500).end('boom');
      case '/never': // headers never come
        slow = { written: 0, closed: new Promise<void>((r) => res.on('close', r)) };
        return;
      case '/drip': {
        // A byte every 20 ms, forever: never idle for long, but the exchange never ends.
        const state = { written: 0, closed: new Promise<void>((r) => res.on('close', r)) };
        slow = state;
        res.writeHead(200, { 'content-type': 'image/png' });
        const timer = setInterval(() => {
          res.write('x');
          state.written += 1;
        }, 20);
        res.on('close', () => clearInterval(timer));
        return;
      }
      case '/exact':
        return res.writeHead(200).end(Buffer.alloc(1000, 1));
      case '/exact-plus-one':
        res.writeHead(200); // chunked: no Content-Length to reject early on
        res.write(Buffer.alloc(500, 1));
        return res.end(Buffer.alloc(501, 1));
      case '/declared-large': // the header alone must be enough to refuse
        res.writeHead(200, { 'content-length': String(MAX_UPLOAD_BYTES + 1) });
        res.write(Buffer.alloc(10));
        return;
      case '/cut': // dies mid-body
        res.writeHead(200, { 'content-length': '1000' });
        res.write(Buffer.alloc(100));
        setTimeout(() => res.destroy(), 20);
        return;
      case '/huge': {
        // Chunked, no Content-Length, 64 MB: only a streaming cap stops it early.
        const state = { written: 0, finished: false, closed: new Promise<void>((r) => res.on('close', r)) };
        huge = state;
        res.writeHead(200, { 'content-type': 'image/png' });
        const chunk = Buffer.alloc(64 * 1024, 7);
        const pump = () => {
          while (state.written < HUGE_TOTAL && !res.destroyed) {
            state.written += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          if (!res.destroyed) res.end(() => (state.finished = true));
        };
        return pump();
      }
      default:
        return res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  requestSpy.mockRestore();
  httpsRequestSpy.mockRestore();
});

beforeEach(() => {
  requests = [];
  huge = null;
  slow = null;
  requestSpy.mockClear();
  httpsRequestSpy.mockClear();
});

const local = (path: string) => `http://127.0.0.1:${port}${path}`;
const opts = { maxBytes: MAX_UPLOAD_BYTES, timeoutMs: 2000, allowLoopback: true };

async function expectRefusedBeforeConnecting(promise: Promise<unknown>) {
  const err = await domainErrorOf(promise);
  expect([toErrorResponse(err).status, err.code, err.param]).toEqual([400, 'invalid_image_url', 'image_url']);
  expect(requestSpy).not.toHaveBeenCalled();
  expect(httpsRequestSpy).not.toHaveBeenCalled();
  expect(requests).toHaveLength(0);
}

describe('fetchImageBytes: success', () => {
  test('returns the body from the loopback server (test-only allowance)', async () => {
    const bytes = await fetchImageBytes(local('/image.png'), opts);
    expect(bytes.equals(png)).toBe(true);
    expect(requests).toEqual([{ url: '/image.png', host: `127.0.0.1:${port}` }]);
  });

  test('connects to the address the resolver gave, keeping the URL host in the Host header', async () => {
    const resolve = jest.fn(async (host: string) => (host === 'img.test' ? ['127.0.0.1'] : []));
    const bytes = await fetchImageBytes(`http://img.test:${port}/image.png`, { ...opts, resolve });
    expect(bytes.equals(png)).toBe(true);
    expect(resolve).toHaveBeenCalledTimes(1);
    expect(resolve).toHaveBeenCalledWith('img.test');
    expect(requests).toEqual([{ url: '/image.png', host: `img.test:${port}` }]);
  });

  test('a body of exactly maxBytes is accepted', async () => {
    const bytes = await fetchImageBytes(local('/exact'), { ...opts, maxBytes: 1000 });
    expect(bytes.length).toBe(1000);
  });
});

describe('fetchImageBytes: address guard', () => {
  test('loopback is refused without the test-only allowance, before any request', async () => {
    await expectRefusedBeforeConnecting(fetchImageBytes(local('/image.png'), { ...opts, allowLoopback: false }));
  });

  test('"localhost" via the system resolver is refused without the allowance', async () => {
    await expectRefusedBeforeConnecting(fetchImageBytes(`http://localhost:${port}/image.png`, { ...opts, allowLoopback: false }));
  });

  test('IPv6 literal [::1] is classified without DNS and refused', async () => {
    const resolve = jest.fn(async () => ['127.0.0.1']);
    await expectRefusedBeforeConnecting(fetchImageBytes(`http://[::1]:${port}/image.png`, { ...opts, allowLoopback: false, resolve }));
    expect(resolve).not.toHaveBeenCalled();
  });

  test('IPv4-mapped loopback does not get the loopback allowance', async () => {
    await expectRefusedBeforeConnecting(fetchImageBytes(`http://[::ffff:127.0.0.1]:${port}/image.png`, opts));
  });

  test('a made-up name resolving to a private address is refused before connecting', async () => {
    const resolve = jest.fn(async () => ['10.0.0.1']);
    await expectRefusedBeforeConnecting(fetchImageBytes(`http://internal.test:${port}/image.png`, { ...opts, resolve }));
    expect(resolve).toHaveBeenCalledWith('internal.test');
  });

  test('a name is refused when ANY of its addresses is not allowed', async () => {
    const resolve = async () => ['127.0.0.1', '169.254.169.254'];
    await expectRefusedBeforeConnecting(fetchImageBytes(`http://mixed.test:${port}/image.png`, { ...opts, resolve }));
  });

  test('a name that does not resolve is refused', async () => {
    const notFound = Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    await expectRefusedBeforeConnecting(fetchImageBytes(`http://nowhere.test:${port}/`, { ...opts, resolve: async () => Promise.reject(notFound) }));
    await expectRefusedBeforeConnecting(fetchImageBytes(`http://nowhere.test:${port}/`, { ...opts, resolve: async () => [] }));
  });

  test.each([
    ['empty', ''],
    ['not a string', 42 as unknown as string],
    ['relative', '/image.png'],
    ['no scheme', '127.0.0.1/image.png'],
    ['ftp', 'ftp://img.test/image.png'],
    ['file', 'file:///etc/passwd'],
    ['data', 'data:image/png;base64,iVBORw0KGgo='],
    ['credentials', 'http://user:secret@img.test/image.png'],
    ['username only', 'http://user@img.test/image.png'],
  ])('refuses %s URLs', async (_label, url) => {
    const resolve = jest.fn(async () => ['127.0.0.1']);
    await expectRefusedBeforeConnecting(fetchImageBytes(url, { ...opts, resolve }));
    expect(resolve).not.toHaveBeenCalled();
  });
});

describe('fetchImageBytes: responses', () => {
  test('a redirect is not followed', async () => {
    const err = await domainErrorOf(fetchImageBytes(local('/redirect'), opts));
    expect([err.code, err.param]).toEqual(['too_many_redirects', 'image_url']);
    expect(requests.map((r) => r.url)).toEqual(['/redirect']);
  });

  test.each(['/missing', '/error'])('non-2xx %s fails', async (path) => {
    const err = await domainErrorOf(fetchImageBytes(local(path), opts));
    expect(err.code).toBe('image_fetch_failed');
  });

  test('a connection refused fails', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const err = await domainErrorOf(fetchImageBytes(`http://127.0.0.1:${closedPort}/`, opts));
    expect(err.code).toBe('image_fetch_failed');
  });

  test('a connection cut mid-body fails', async () => {
    const err = await domainErrorOf(fetchImageBytes(local('/cut'), opts));
    expect(err.code).toBe('image_fetch_failed');
  });

  // The server never ends these exchanges, so only the client's bound can end them:
  // the fetch fails, and it is the client that closed the connection.
  test('no response headers within timeoutMs fails', async () => {
    const err = await domainErrorOf(fetchImageBytes(local('/never'), { ...opts, timeoutMs: 200 }));
    expect(err.code).toBe('image_fetch_failed');
    expect(slow!.written).toBe(0);
    await slow!.closed;
  });

  test('timeoutMs bounds the whole exchange, not just idle time', async () => {
    const err = await domainErrorOf(fetchImageBytes(local('/drip'), { ...opts, timeoutMs: 300 }));
    expect(err.code).toBe('image_fetch_failed');
    expect(slow!.written).toBeGreaterThan(0); // the body was flowing: never idle past 20 ms
    await slow!.closed;
  });
});

describe('fetchImageBytes: size cap', () => {
  test('one byte over maxBytes (chunked) is refused', async () => {
    const err = await domainErrorOf(fetchImageBytes(local('/exact-plus-one'), { ...opts, maxBytes: 1000 }));
    expect([err.code, err.param]).toEqual(['file_too_large', 'image_url']);
  });

  test('a Content-Length over maxBytes is refused at once, without waiting for the body', async () => {
    const err = await domainErrorOf(fetchImageBytes(local('/declared-large'), { ...opts, timeoutMs: 5000 }));
    expect(err.code).toBe('file_too_large'); // a timeout would be image_fetch_failed
  });

  test('a chunked body over 5 MB is aborted while streaming', async () => {
    const err = await domainErrorOf(fetchImageBytes(local('/huge'), { ...opts, timeoutMs: 10_000 }));
    expect(err.code).toBe('file_too_large');
    await huge!.closed; // the client hung up ...
    expect(huge!.finished).toBe(false); // ... before the server could send everything
    expect(huge!.written).toBeLessThan(HUGE_TOTAL / 2);
  });
});

describe('fetchImageBytes: deadline and ports (issue 7, item 5)', () => {
  /** These tests resolve to a public address: should the guard fail, no socket may open there. */
  const noSockets = () => {
    const refuse = () => {
      throw new Error('this test must not open a connection');
    };
    requestSpy.mockImplementationOnce(refuse);
    httpsRequestSpy.mockImplementationOnce(refuse);
  };
  // The spies call through to node; an unused once-implementation must not outlive its test.
  const callThrough = [requestSpy.getMockImplementation()!, httpsRequestSpy.getMockImplementation()!] as const;
  afterEach(() => {
    requestSpy.mockReset().mockImplementation(callThrough[0]);
    httpsRequestSpy.mockReset().mockImplementation(callThrough[1]);
  });

  test('the deadline covers DNS: a slow resolver is given up on at timeoutMs', async () => {
    const events: string[] = [];
    let answer!: (addresses: string[]) => void;
    const answered = new Promise<string[]>((resolve) => {
      answer = resolve;
    });
    // A resolver that answers only when told to (the 3 s resolver).
    const resolve = jest.fn(() =>
      answered.then((addresses) => {
        events.push('resolver answered');
        return addresses;
      }),
    );
    const slowAnswer = setTimeout(() => answer(['127.0.0.1']), 3000);
    const err = await domainErrorOf(
      fetchImageBytes(`http://slow-dns.test:${port}/image.png`, { ...opts, timeoutMs: 200, resolve }).finally(() => events.push('fetch settled')),
    );
    events.push('checked');
    clearTimeout(slowAnswer);
    answer(['127.0.0.1']);
    await answered;
    expect([err.code, err.param]).toEqual(['image_fetch_failed', 'image_url']);
    expect(events.slice(0, 2)).toEqual(['fetch settled', 'checked']);
    expect(resolve).toHaveBeenCalledTimes(1);
    // The late answer opens no connection.
    await new Promise((r) => setImmediate(r));
    expect(requestSpy).not.toHaveBeenCalled();
    expect(requests).toHaveLength(0);
  });

  test.each(['http://img.test:8080/image.png', 'https://img.test:8443/image.png', 'http://img.test:22/'])(
    '%s: a port other than 80/443 is refused before resolving',
    async (url) => {
      noSockets();
      const resolve = jest.fn(async () => ['93.184.216.34']);
      await expectRefusedBeforeConnecting(fetchImageBytes(url, { ...opts, allowLoopback: false, resolve }));
      expect(resolve).not.toHaveBeenCalled();
    },
  );

  test('the loopback allowance keeps arbitrary ports for loopback only', async () => {
    // A loopback test server on its random port is reachable...
    expect(await fetchImageBytes(local('/image.png'), opts)).toEqual(png);
    requests = [];
    requestSpy.mockClear();
    // ...a public address on that kind of port is not.
    noSockets();
    const resolve = jest.fn(async () => ['93.184.216.34']);
    await expectRefusedBeforeConnecting(fetchImageBytes('http://img.test:8080/image.png', { ...opts, resolve }));
    expect(resolve).toHaveBeenCalledTimes(1);
  });

  test('allowedPorts configures the ports', async () => {
    noSockets();
    const resolve = jest.fn(async () => ['93.184.216.34']);
    await expectRefusedBeforeConnecting(fetchImageBytes('http://img.test/image.png', { ...opts, allowLoopback: false, allowedPorts: [8080], resolve }));
    expect(resolve).not.toHaveBeenCalled();
  });
});
