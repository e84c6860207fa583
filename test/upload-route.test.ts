import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { createAssetStore } from '../lib/asset-store';
import { call, errorBody, newOrg, useHarness } from './support/harness';

/** POST /v1/upload end to end: multipart and image_url, against the real store and database. */
const h = useHarness();
let apiKey: string;
let imageServer: http.Server;
let imageBase: string;
let png: Buffer;

const solid = (format: 'png' | 'jpeg' | 'webp' | 'gif') =>
  sharp({ create: { width: 8, height: 6, channels: 3, background: { r: 200, g: 10, b: 10 } } })
    .toFormat(format)
    .toBuffer();

function multipart(bytes: Buffer, field = 'file', filename = 'image.png', type = 'image/png') {
  const boundary = `----test${Date.now()}`;
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`),
    bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { rawBody: body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

beforeAll(async () => {
  apiKey = (await newOrg(h.db)).api_key;
  png = await solid('png');
  const gif = await solid('gif');
  imageServer = http.createServer((req, res) => {
    if (req.url === '/image.png') {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(png);
      return;
    }
    if (req.url === '/fake.png') {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(gif);
      return;
    }
    if (req.url === '/redirect') {
      res.writeHead(302, { location: '/image.png' });
      res.end();
      return;
    }
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((r) => imageServer.listen(0, '127.0.0.1', r));
  imageBase = `http://127.0.0.1:${(imageServer.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => imageServer.close(r));
});

test('multipart PNG: 201 with a file_id path, bytes stored, row owned by the organization', async () => {
  const res = await call(h.url, 'POST', '/v1/upload', { token: apiKey, ...multipart(png) });
  expect(res.status).toBe(201);
  expect(Object.keys(res.body)).toEqual(['file_id']);
  const now = new Date();
  const month = String(now.getUTCMonth() + 1).padStart(2, '0');
  expect(res.body.file_id).toMatch(new RegExp(`^uploads/${now.getUTCFullYear()}/${month}/[0-9a-f]{32}\\.png$`));
  expect(await createAssetStore().get(res.body.file_id)).toEqual(png);
  const row = await h.db.upload.findUnique({ where: { fileId: res.body.file_id } });
  expect(row).toMatchObject({ ext: 'png', mime: 'image/png', width: 8, height: 6, sizeBytes: png.length });
});

test('the type comes from the bytes: a JPEG sent as "x.png" is stored as .jpg', async () => {
  const jpeg = await solid('jpeg');
  const res = await call(h.url, 'POST', '/v1/upload', { token: apiKey, ...multipart(jpeg, 'file', 'x.png', 'image/png') });
  expect(res.status).toBe(201);
  expect(res.body.file_id).toMatch(/\.jpg$/);
});

test('WebP is accepted', async () => {
  const res = await call(h.url, 'POST', '/v1/upload', { token: apiKey, ...multipart(await solid('webp')) });
  expect(res.status).toBe(201);
  expect(res.body.file_id).toMatch(/\.webp$/);
});

test('GIF is unsupported_mimetype, random bytes are invalid_file', async () => {
  const gif = await call(h.url, 'POST', '/v1/upload', { token: apiKey, ...multipart(await solid('gif'), 'file', 'a.png') });
  expect(gif.status).toBe(400);
  expect(gif.body).toEqual(errorBody('unsupported_mimetype', 'invalid_request_error', 'file'));
  const junk = await call(h.url, 'POST', '/v1/upload', { token: apiKey, ...multipart(Buffer.from('not an image at all')) });
  expect(junk.status).toBe(400);
  expect(junk.body).toEqual(errorBody('invalid_file', 'invalid_request_error', 'file'));
});

test('over 5 MB is file_too_large', async () => {
  const big = Buffer.concat([png, Buffer.alloc(5 * 1024 * 1024)]);
  const res = await call(h.url, 'POST', '/v1/upload', { token: apiKey, ...multipart(big) });
  expect(res.status).toBe(400);
  expect(res.body).toEqual(errorBody('file_too_large', 'invalid_request_error', 'file'));
});

test('both inputs at once are invalid_value', async () => {
  const boundary = `----both${Date.now()}`;
  const rawBody = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="image_url"\r\n\r\n${imageBase}/image.png\r\n`),
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`),
    png,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const res = await call(h.url, 'POST', '/v1/upload', { token: apiKey, rawBody, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } });
  expect(res.status).toBe(400);
  expect(res.body).toEqual(errorBody('invalid_value', 'invalid_request_error', 'image_url'));
});

test('neither input is invalid_value', async () => {
  const none = await call(h.url, 'POST', '/v1/upload', { token: apiKey });
  expect(none.status).toBe(400);
  expect(none.body).toEqual(errorBody('invalid_value'));
  const emptyJson = await call(h.url, 'POST', '/v1/upload', { token: apiKey, body: {} });
  expect(emptyJson.status).toBe(400);
  expect(emptyJson.body).toEqual(errorBody('invalid_value'));
});

test('image_url from a (test-allowed) loopback server is fetched and stored', async () => {
  const res = await call(h.url, 'POST', '/v1/upload', { token: apiKey, body: { image_url: `${imageBase}/image.png` } });
  expect(res.status).toBe(201);
  expect(await createAssetStore().get(res.body.file_id)).toEqual(png);
});

test('image_url errors: redirect, 404, bad URL, wrong type', async () => {
  const cases: [string, string][] = [
    [`${imageBase}/redirect`, 'too_many_redirects'],
    [`${imageBase}/missing.png`, 'image_fetch_failed'],
    ['ftp://127.0.0.1/x.png', 'invalid_image_url'],
    ['not a url', 'invalid_image_url'],
    ['', 'invalid_image_url'],
    [`${imageBase}/fake.png`, 'unsupported_mimetype'],
  ];
  for (const [url, code] of cases) {
    const res = await call(h.url, 'POST', '/v1/upload', { token: apiKey, body: { image_url: url } });
    expect({ url, status: res.status, body: res.body }).toEqual({ url, status: 400, body: errorBody(code, 'invalid_request_error', 'image_url') });
  }
});

test('upload needs an API key', async () => {
  const res = await call(h.url, 'POST', '/v1/upload', multipart(png));
  expect(res.status).toBe(401);
  expect(res.body).toEqual(errorBody('auth_required', 'authentication_error'));
});
