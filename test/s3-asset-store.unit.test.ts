import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promises as fs } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { S3AssetStore, sha256Hex, signV4, uriEncode, type S3Options } from '../lib/s3-asset-store';

// s3rver ships no types; declare just what is used.
const S3rver: new (options: object) => { run(): Promise<AddressInfo>; close(): Promise<void> } = require('s3rver');

const SECRET = 'S3RVER';
let dir: string;
let s3rver: InstanceType<typeof S3rver>;
let gate: http.Server;
let options: S3Options;
/** `METHOD /path` of every request that reached the gate. */
const seen: string[] = [];

/**
 * s3rver 3.7.1 accepts any V4 signature (node_modules/s3rver/lib/middleware/authentication.js: "Signature version 4
 * calculation is unimplemeneted") and skips payload verification. This gate in front of it re-derives
 * each request's signature from what actually arrived on the wire (path, headers, body hash) with the
 * real secret, and answers 403 SignatureDoesNotMatch like S3 does. signV4 itself is pinned to AWS's
 * published example below, so the gate is not checking the code against itself.
 */
async function verifyAndForward(req: http.IncomingMessage, res: http.ServerResponse, upstream: string): Promise<void> {
  const body = Buffer.concat(await req.toArray());
  seen.push(`${req.method} ${req.url}`);
  const auth = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/\d{8}\/([^/]+)\/s3\/aws4_request,SignedHeaders=([^,]+),Signature=[0-9a-f]{64}$/.exec(
    req.headers.authorization ?? '',
  );
  const amzDate = String(req.headers['x-amz-date']);
  const signedNames = auth?.[3].split(';') ?? [];
  const expected =
    auth &&
    signV4({
      method: req.method!,
      host: req.headers.host!,
      path: req.url!,
      headers: Object.fromEntries(
        signedNames.filter((n) => !['host', 'x-amz-date', 'x-amz-content-sha256'].includes(n)).map((n) => [n, String(req.headers[n])]),
      ),
      payloadHash: sha256Hex(body),
      region: auth[2],
      accessKeyId: auth[1],
      secretAccessKey: SECRET,
      date: new Date(amzDate.replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, '$1-$2-$3T$4:$5:$6Z')),
    });
  if (!expected || expected.authorization !== req.headers.authorization) {
    res.writeHead(403, { 'content-type': 'application/xml' });
    res.end('<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SignatureDoesNotMatch</Code></Error>');
    return;
  }
  const forwarded = Object.fromEntries(
    Object.entries(req.headers).filter(([n]) => n === 'authorization' || n === 'content-type' || n.startsWith('x-amz-')),
  ) as Record<string, string>;
  const reply = await fetch(`${upstream}${req.url}`, { method: req.method, headers: forwarded, body: body.length ? body : undefined });
  const replyType = reply.headers.get('content-type');
  res.writeHead(reply.status, replyType ? { 'content-type': replyType } : {});
  res.end(Buffer.from(await reply.arrayBuffer()));
}

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 's3rver-'));
  s3rver = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: dir, configureBuckets: [{ name: 'assets' }] });
  const { port } = await s3rver.run();
  gate = http.createServer((req, res) => {
    verifyAndForward(req, res, `http://127.0.0.1:${port}`).catch((err) => res.writeHead(500).end(String(err)));
  });
  await new Promise<void>((resolve) => gate.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(gate.address() as AddressInfo).port}`;
  options = { endpoint, bucket: 'assets', region: 'us-east-1', accessKeyId: 'S3RVER', secretAccessKey: SECRET };
});

afterAll(async () => {
  await new Promise((resolve) => gate?.close(resolve));
  await s3rver?.close();
  await fs.rm(dir, { recursive: true, force: true });
});

const png = (): Buffer => Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(1024)]);

describe('signV4', () => {
  test("matches AWS's S3 SigV4 header-auth example (GET Object with Range)", () => {
    const headers = signV4({
      method: 'GET',
      host: 'examplebucket.s3.amazonaws.com',
      path: '/test.txt',
      headers: { Range: 'bytes=0-9' },
      payloadHash: sha256Hex(''),
      region: 'us-east-1',
      accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
      secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      date: new Date('2013-05-24T00:00:00Z'),
    });
    expect(headers).toEqual({
      range: 'bytes=0-9',
      'x-amz-date': '20130524T000000Z',
      'x-amz-content-sha256': 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      authorization:
        'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,' +
        'SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,' +
        'Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
    });
  });

  test('URI-encodes path segments per S3 rules', () => {
    expect(uriEncode("a b$(c)*!'~_-.z")).toBe('a%20b%24%28c%29%2A%21%27~_-.z');
  });
});

describe('S3AssetStore against s3rver', () => {
  test('put/get round trip is binary-exact and stores the content type', async () => {
    const store = new S3AssetStore(options);
    for (const [ext, type] of [
      ['png', 'image/png'],
      ['jpg', 'image/jpeg'],
      ['webp', 'image/webp'],
    ]) {
      const key = `assets/${randomBytes(8).toString('hex')}.${ext}`;
      const bytes = png();
      await store.put(key, bytes);
      expect(await store.get(key)).toEqual(bytes);
      const head = await store.send('HEAD', key);
      expect(head.status).toBe(200);
      expect(head.headers.get('content-type')).toBe(type);
    }
  });

  test('nested keys use path-style URLs with the slashes kept', async () => {
    const store = new S3AssetStore(options);
    const key = `uploads/2026/11/${randomBytes(16).toString('hex')}.png`;
    const bytes = png();
    await store.put(key, bytes);
    expect(seen).toContain(`PUT /assets/${key}`);
    expect(await store.exists(key)).toBe(true);
    expect(await store.get(key)).toEqual(bytes);
  });

  test('missing keys: get → null, exists → false, delete succeeds', async () => {
    const store = new S3AssetStore(options);
    expect(await store.get('assets/missing.png')).toBeNull();
    expect(await store.exists('assets/missing.png')).toBe(false);
    await expect(store.delete('assets/missing.png')).resolves.toBeUndefined();
  });

  test('delete removes the object', async () => {
    const store = new S3AssetStore(options);
    const key = `assets/${randomBytes(8).toString('hex')}.webp`;
    await store.put(key, png());
    expect(await store.exists(key)).toBe(true);
    await store.delete(key);
    expect(await store.exists(key)).toBe(false);
    expect(await store.get(key)).toBeNull();
  });

  test('a wrong secret is refused with SignatureDoesNotMatch', async () => {
    const store = new S3AssetStore({ ...options, secretAccessKey: 'not-the-secret' });
    await expect(store.put('assets/x.png', png())).rejects.toThrow(/403 SignatureDoesNotMatch/);
    await expect(store.get('assets/x.png')).rejects.toThrow(/403 SignatureDoesNotMatch/);
  });

  test('a missing bucket is an error, not "not found"', async () => {
    const store = new S3AssetStore({ ...options, bucket: 'no-such-bucket' });
    await expect(store.get('assets/x.png')).rejects.toThrow(/404 NoSuchBucket/);
    await expect(store.delete('assets/x.png')).rejects.toThrow(/404 NoSuchBucket/);
  });

  test('a service that does not answer times out with the request named', async () => {
    const silent = http.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const endpoint = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
      const store = new S3AssetStore({ ...options, endpoint, timeoutMs: 200 });
      await expect(store.get('assets/x.png')).rejects.toThrow('S3 GET assets/x.png failed: no answer in 200 ms');
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  test('unsafe keys are rejected before any request', async () => {
    const store = new S3AssetStore(options);
    const before = seen.length;
    for (const key of ['../secret.png', 'assets/../../x.png', '/abs.png', 'assets/x.svg', 'Assets/x.png', 'a%2Fb.png', '']) {
      await expect(store.put(key, png())).rejects.toThrow('unsafe asset key');
      await expect(store.get(key)).rejects.toThrow('unsafe asset key');
      await expect(store.exists(key)).rejects.toThrow('unsafe asset key');
      await expect(store.delete(key)).rejects.toThrow('unsafe asset key');
    }
    expect(seen.length).toBe(before);
  });
});

describe('createAssetStore', () => {
  /** config reads the environment once, at import: load a fresh copy under the given variables. */
  function loadWithEnv(vars: Record<string, string | undefined>): typeof import('../lib/asset-store') {
    const saved = Object.fromEntries(Object.keys(vars).map((name) => [name, process.env[name]]));
    const set = (values: Record<string, string | undefined>) => {
      for (const [name, value] of Object.entries(values)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    };
    set(vars);
    try {
      let mod!: typeof import('../lib/asset-store');
      jest.isolateModules(() => {
        mod = require('../lib/asset-store');
      });
      return mod;
    } finally {
      set(saved);
    }
  }

  const s3Env = () => ({
    ASSET_STORE: 's3',
    S3_ENDPOINT: options.endpoint,
    S3_BUCKET: 'assets',
    S3_REGION: undefined,
    S3_ACCESS_KEY_ID: 'S3RVER',
    S3_SECRET_ACCESS_KEY: SECRET,
  });

  test('ASSET_STORE=s3 returns a working S3 store', async () => {
    const { createAssetStore } = loadWithEnv(s3Env());
    const store = createAssetStore();
    expect(store.constructor.name).toBe('S3AssetStore');
    const key = `uploads/2026/11/${randomBytes(16).toString('hex')}.jpg`;
    const bytes = png();
    await store.put(key, bytes);
    expect(seen).toContain(`PUT /assets/${key}`);
    expect(await new S3AssetStore(options).get(key)).toEqual(bytes);
  });

  test('a missing S3 variable fails at creation, naming it', () => {
    const { createAssetStore } = loadWithEnv({ ...s3Env(), S3_BUCKET: undefined, S3_SECRET_ACCESS_KEY: '' });
    expect(() => createAssetStore()).toThrow('ASSET_STORE=s3 needs S3_BUCKET, S3_SECRET_ACCESS_KEY');
  });

  test('an unknown ASSET_STORE is refused; local stays the default and an explicit folder means local', () => {
    expect(() => loadWithEnv({ ASSET_STORE: 'gcs' }).createAssetStore()).toThrow('ASSET_STORE must be "local" or "s3"');
    expect(loadWithEnv({ ASSET_STORE: undefined }).createAssetStore().constructor.name).toBe('LocalAssetStore');
    const local = loadWithEnv(s3Env()).createAssetStore('/tmp/somewhere');
    expect(local.constructor.name).toBe('LocalAssetStore');
    expect((local as { root?: string }).root).toBe('/tmp/somewhere');
  });
});
