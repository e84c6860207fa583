import { createHmac } from 'node:crypto';
import { sha256Hex } from './hash';
import { assertSafeKey, type AssetStore } from './asset-store';

/**
 * Asset store on any S3-compatible service (AWS S3, MinIO, s3rver…), signed
 * with AWS Signature Version 4 over plain fetch so no SDK is needed.
 * https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html
 */
export interface S3Options {
  /** Service base URL, e.g. `https://s3.eu-west-1.amazonaws.com` or `http://127.0.0.1:9000`. */
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Per-request timeout, body included. */
  timeoutMs?: number;
}

export interface SignInput {
  method: string;
  host: string;
  /** Canonical (already URI-encoded) path. */
  path: string;
  /** Extra headers to sign, besides host / x-amz-date / x-amz-content-sha256. */
  headers?: Record<string, string>;
  /** Hex SHA-256 of the body. */
  payloadHash: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  date?: Date;
}

const CONTENT_TYPES: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', webp: 'image/webp' };

export { sha256Hex };
const hmac = (key: string | Buffer, data: string): Buffer => createHmac('sha256', key).update(data).digest();

/** S3's UriEncode: everything but A-Z a-z 0-9 - _ . ~ is %XX (encodeURIComponent also spares !'()*). */
export function uriEncode(segment: string): string {
  return encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * Returns the headers to send (the signed ones, minus host, plus authorization).
 * Query strings are not used by this store, so the canonical query is always empty.
 */
export function signV4(input: SignInput): Record<string, string> {
  const amzDate = (input.date ?? new Date())
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  const day = amzDate.slice(0, 8);
  const headers: Record<string, string> = {
    ...Object.fromEntries(Object.entries(input.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v.trim()])),
    host: input.host,
    'x-amz-content-sha256': input.payloadHash,
    'x-amz-date': amzDate,
  };
  const names = Object.keys(headers).sort();
  const signedHeaders = names.join(';');
  const canonicalRequest = [
    input.method,
    input.path,
    '',
    ...names.map((n) => `${n}:${headers[n].replace(/\s+/g, ' ')}`),
    '',
    signedHeaders,
    input.payloadHash,
  ].join('\n');
  const scope = `${day}/${input.region}/s3/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonicalRequest)].join('\n');
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${input.secretAccessKey}`, day), input.region), 's3'), 'aws4_request');
  const signature = createHmac('sha256', signingKey).update(stringToSign).digest('hex');
  const { host: _host, ...sent } = headers; // fetch sets Host itself, from the URL
  return {
    ...sent,
    authorization: `AWS4-HMAC-SHA256 Credential=${input.accessKeyId}/${scope},SignedHeaders=${signedHeaders},Signature=${signature}`,
  };
}

export class S3AssetStore implements AssetStore {
  private readonly base: URL;

  constructor(private readonly options: S3Options) {
    this.base = new URL(options.endpoint);
  }

  async put(key: string, bytes: Buffer): Promise<void> {
    const ext = key.slice(key.lastIndexOf('.') + 1);
    const res = await this.send('PUT', key, bytes, { 'content-type': CONTENT_TYPES[ext] });
    if (!res.ok) throw await s3Error(res, 'PUT', key);
    await res.arrayBuffer(); // drain, so the connection is reused
  }

  async get(key: string): Promise<Buffer | null> {
    const res = await this.send('GET', key);
    if (res.ok) return Buffer.from(await res.arrayBuffer());
    const err = await s3Error(res, 'GET', key);
    if (isMissingKey(res, err)) return null;
    throw err;
  }

  async delete(key: string): Promise<void> {
    const res = await this.send('DELETE', key);
    if (res.ok) return void (await res.arrayBuffer());
    const err = await s3Error(res, 'DELETE', key);
    if (!isMissingKey(res, err)) throw err;
  }

  async exists(key: string): Promise<boolean> {
    const res = await this.send('HEAD', key);
    if (res.ok) return true;
    // HEAD responses carry no body, so no S3 error code to tell a missing bucket apart.
    if (res.status === 404) return false;
    throw await s3Error(res, 'HEAD', key);
  }

  /** Signed request to `{endpoint}/{bucket}/{key}`: path-style, so a local endpoint needs no bucket DNS names. */
  send(method: string, key: string, body?: Buffer, headers: Record<string, string> = {}): Promise<Response> {
    assertSafeKey(key);
    const { bucket, region, accessKeyId, secretAccessKey, timeoutMs = 15_000 } = this.options;
    const prefix = this.base.pathname.replace(/\/+$/, '');
    const path = `${prefix}/${uriEncode(bucket)}/${key.split('/').map(uriEncode).join('/')}`;
    const signed = signV4({
      method,
      host: this.base.host,
      path,
      headers,
      payloadHash: sha256Hex(body ?? ''),
      region,
      accessKeyId,
      secretAccessKey,
    });
    const signal = AbortSignal.timeout(timeoutMs);
    return fetch(new URL(path, this.base), { method, headers: signed, body, signal }).catch((err: Error) => {
      // fetch's own message ("fetch failed") names neither the request nor the cause.
      const why = err.name === 'TimeoutError' ? `no answer in ${timeoutMs} ms` : ((err.cause as Error | undefined)?.message ?? err.message);
      throw new Error(`S3 ${method} ${key} failed: ${why}`, { cause: err });
    });
  }
}

/** Error naming the status and S3's `<Code>` (e.g. "403 SignatureDoesNotMatch"). */
async function s3Error(res: Response, method: string, key: string): Promise<Error & { code?: string }> {
  const text = await res.text().catch(() => '');
  const code = /<Code>([^<]+)<\/Code>/.exec(text)?.[1];
  return Object.assign(new Error(`S3 ${method} ${key} failed: ${res.status} ${code ?? res.statusText}`), { status: res.status, code });
}

/** A 404 for the key itself; a missing bucket is a configuration error, never "not found". */
function isMissingKey(res: Response, err: { code?: string }): boolean {
  return res.status === 404 && err.code !== 'NoSuchBucket';
}
