import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { toErrorResponse } from '../../lib/http/errors';
import type { DomainError } from '../../domain/errors';
import { domainErrorOf } from '../support/domain-error';
import { readFilePart } from '../../api/uploads/multipart';

const BOUNDARY = '----test-boundary-7MA4YWxkTrZu0gW';
const CONTENT_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

type Part = { name: string; value: string | Buffer; filename?: string };

function partHead({ name, filename }: Part): string {
  const disposition = `form-data; name="${name}"${filename ? `; filename="${filename}"` : ''}`;
  const type = filename ? '\r\nContent-Type: application/octet-stream' : '';
  return `--${BOUNDARY}\r\nContent-Disposition: ${disposition}${type}\r\n\r\n`;
}

function body(parts: Part[]): Buffer {
  const pieces = parts.flatMap((p) => [Buffer.from(partHead(p)), Buffer.from(p.value), Buffer.from('\r\n')]);
  return Buffer.concat([...pieces, Buffer.from(`--${BOUNDARY}--\r\n`)]);
}

/** Stand-in for an IncomingMessage: a stream with headers; nothing leaves the process. */
function fakeRequest(headers: http.IncomingHttpHeaders = { 'content-type': CONTENT_TYPE }) {
  return Object.assign(new PassThrough(), { headers });
}

function read(payload: Buffer, opts: { maxBytes: number; field?: string }, headers?: http.IncomingHttpHeaders) {
  const req = fakeRequest(headers);
  const result = readFilePart(req as unknown as http.IncomingMessage, opts);
  req.end(payload);
  return result;
}

const file = (value: string | Buffer, name = 'file'): Part => ({ name, value, filename: 'upload.png' });

describe('readFilePart', () => {
  test('returns the file bytes and the names of the other fields', async () => {
    const bytes = Buffer.from([0, 1, 2, 255, 13, 10, 45, 45]); // binary, including CRLF and dashes
    const result = await read(body([{ name: 'name', value: 'Spring' }, file(bytes), { name: 'alt', value: 'x' }]), { maxBytes: 100 });
    expect(result.bytes.equals(bytes)).toBe(true);
    expect(result.otherFields).toEqual(['name', 'alt']);
  });

  test('honours a custom field name', async () => {
    const result = await read(body([file('abc', 'image')]), { maxBytes: 100, field: 'image' });
    expect(result.bytes.toString()).toBe('abc');
  });

  test('a file of exactly maxBytes is accepted', async () => {
    const result = await read(body([file(Buffer.alloc(1000, 1))]), { maxBytes: 1000 });
    expect(result.bytes.length).toBe(1000);
  });

  test('one byte over maxBytes → file_too_large', async () => {
    const err = await domainErrorOf(read(body([file(Buffer.alloc(1001, 1))]), { maxBytes: 1000 }));
    expect([toErrorResponse(err).status, err.code, err.param]).toEqual([400, 'file_too_large', 'file']);
  });

  test('stops as soon as the cap is passed, before the body ends', async () => {
    const req = fakeRequest();
    const result = readFilePart(req as unknown as http.IncomingMessage, { maxBytes: 5 * 1024 * 1024 });
    req.write(partHead(file('')));
    for (let i = 0; i < 6; i++) req.write(Buffer.alloc(1024 * 1024, 1)); // 6 MB, body never finished
    const err = await domainErrorOf(result);
    expect(err.code).toBe('file_too_large');
    expect(req.writableEnded).toBe(false);
    req.destroy();
  });

  test('missing file part → invalid_value on "file"', async () => {
    const err = await domainErrorOf(read(body([{ name: 'name', value: 'x' }]), { maxBytes: 100 }));
    expect([toErrorResponse(err).status, err.code, err.param]).toEqual([400, 'invalid_value', 'file']);
  });

  test('a text field called "file" is not a file part', async () => {
    const err = await domainErrorOf(read(body([{ name: 'file', value: 'abc' }]), { maxBytes: 100 }));
    expect([err.code, err.param]).toEqual(['invalid_value', 'file']);
  });

  test('a file part under another name → invalid_value', async () => {
    const err = await domainErrorOf(read(body([file('abc', 'image')]), { maxBytes: 100 }));
    expect([err.code, err.param]).toEqual(['invalid_value', 'file']);
  });

  test('two file parts → invalid_value', async () => {
    const err = await domainErrorOf(read(body([file('a'), file('b')]), { maxBytes: 100 }));
    expect([err.code, err.param]).toEqual(['invalid_value', 'file']);
  });

  test.each([
    ['body cut before the closing boundary', Buffer.from(`${partHead(file(''))}abc`)],
    ['no boundary at all', Buffer.from('just some text')],
    ['malformed part header', Buffer.from(`--${BOUNDARY}\r\nContent-Disposition form-data\r\n\r\nabc\r\n--${BOUNDARY}--\r\n`)],
  ])('%s → invalid_file', async (_label, payload) => {
    const err = await domainErrorOf(read(payload, { maxBytes: 100 }));
    expect([toErrorResponse(err).status, err.code, err.param]).toEqual([400, 'invalid_file', 'file']);
  });

  test.each([
    ['JSON', { 'content-type': 'application/json' }],
    ['no boundary', { 'content-type': 'multipart/form-data' }],
    ['no content type', {}],
  ])('%s request → invalid_file', async (_label, headers) => {
    const err = await domainErrorOf(read(body([file('abc')]), { maxBytes: 100 }, headers));
    expect(err.code).toBe('invalid_file');
  });
});

describe('readFilePart over a loopback HTTP server', () => {
  let server: http.Server;
  let port: number;
  let outcome: Promise<unknown>;
  /** Resolves when the server has a request and has started reading it. */
  let arrived: ((read: { outcome: Promise<unknown> }) => void) | null = null;
  const nextArrival = () =>
    new Promise<{ outcome: Promise<unknown> }>((resolve) => {
      arrived = resolve;
    });

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      outcome = readFilePart(req, { maxBytes: 1000 }).then(
        (part) => {
          res.writeHead(200).end(String(part.bytes.length));
          return part;
        },
        (err: DomainError) => {
          res.writeHead(toErrorResponse(err).status, { connection: 'close' }).end(err.code);
          throw err;
        },
      );
      arrived?.({ outcome });
      arrived = null;
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const post = () => http.request({ host: '127.0.0.1', port, method: 'POST', headers: { 'content-type': CONTENT_TYPE } });

  test('reads a real request', async () => {
    const req = post();
    const response = new Promise<string>((resolve) => req.on('response', (res) => res.on('data', (d) => resolve(String(d)))));
    req.end(body([file(Buffer.alloc(600, 2))]));
    expect(await response).toBe('600');
  });

  test('an oversized upload is answered while the client is still sending', async () => {
    const req = post();
    const response = new Promise<number>((resolve) => req.on('response', (res) => resolve(res.statusCode ?? 0)));
    req.on('error', () => undefined); // the server closes the connection on us
    req.write(partHead(file('')));
    req.write(Buffer.alloc(2000, 1)); // and never end()
    expect(await response).toBe(400);
    expect((await domainErrorOf(outcome)).code).toBe('file_too_large');
    expect(req.writableEnded).toBe(false);
    req.destroy();
  });

  test('a client that disconnects mid-upload does not leave the read hanging', async () => {
    const arrival = nextArrival();
    const req = post();
    req.on('error', () => undefined);
    req.write(partHead(file('')));
    req.write(Buffer.alloc(100, 1));
    const { outcome: read } = await arrival; // the server is reading this request
    req.destroy();
    expect((await domainErrorOf(read)).code).toBe('invalid_file');
  });
});
