import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { config } from '../../lib/config';
import { DomainError } from '../errors';
import { classifyAddress, isLoopback } from './address-policy';

export interface FetchImageOptions {
  maxBytes: number;
  /** Budget for the whole exchange: DNS, connect, headers and body. */
  timeoutMs: number;
  /** Test-only: also allow loopback addresses (nothing else), on any port. */
  allowLoopback?: boolean;
  /** Test-only: refuse every host that is not a loopback address literal or `localhost`, without resolving it. */
  loopbackOnly?: boolean;
  /** Ports a public image URL may name; default `config.imageFetch.allowedPorts` (80 and 443). */
  allowedPorts?: readonly number[];
  /** Host name → addresses; defaults to the system resolver. */
  resolve?: (host: string) => Promise<string[]>;
}

const invalidUrl = (message: string) => new DomainError('invalid_image_url', message, 'image_url');
const fetchFailed = (message: string) => new DomainError('image_fetch_failed', message, 'image_url');
const tooLarge = (maxBytes: number) => new DomainError('file_too_large', `Image is larger than ${maxBytes} bytes`, 'image_url');

const systemResolve = async (host: string) => (await dns.promises.lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/**
 * GET a user-supplied image URL without letting it reach internal services:
 * every resolved address must be public, the socket connects to the address
 * that was checked (no DNS-rebinding window), redirects are refused (they
 * would skip the check) and the body is capped while streaming.
 */
export async function fetchImageBytes(rawUrl: string, opts: FetchImageOptions): Promise<Buffer> {
  const url = parseUrl(rawUrl);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const portAllowed = (opts.allowedPorts ?? config.imageFetch.allowedPorts).includes(port);
  // Refused before resolving, unless the test-only loopback allowance may still apply.
  if (!portAllowed && !opts.allowLoopback) throw badPort();
  // One deadline for the whole exchange, started before DNS: a slow resolver
  // cannot hold the request past it (the lookup is left to finish on its own).
  const deadline = startDeadline(opts.timeoutMs);
  try {
    const address = await Promise.race([checkedAddress(host, opts), deadline.expired]);
    if (!portAllowed && !isLoopback(address)) throw badPort();
    return await get(url, host, address, { ...opts, timeoutMs: deadline.remainingMs() });
  } finally {
    deadline.clear();
  }
}

const badPort = () => invalidUrl('image_url must use port 80 (http) or 443 (https)');

/** A timer that rejects `expired` with the timeout error once `ms` have passed. */
function startDeadline(ms: number) {
  const end = Date.now() + ms;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(fetchFailed('Fetching image_url timed out')), ms);
  });
  expired.catch(() => undefined); // only the race reports it
  return {
    expired,
    remainingMs: () => Math.max(1, end - Date.now()),
    clear: () => clearTimeout(timer),
  };
}

function parseUrl(rawUrl: unknown): URL {
  if (typeof rawUrl !== 'string' || rawUrl === '') throw invalidUrl('image_url must be a non-empty string');
  let url: URL;
  try {
    url = new URL(rawUrl); // throws on relative URLs: there is no base
  } catch {
    throw invalidUrl('image_url must be an absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidUrl('image_url must use http or https');
  if (url.username || url.password) throw invalidUrl('image_url must not contain credentials');
  if (!url.hostname) throw invalidUrl('image_url must have a host');
  return url;
}

/** Resolves `host` and vets every address; returns the one to connect to. */
const checkedAddress = (host: string, opts: FetchImageOptions) => vettedAddress(host, opts, (reason) => invalidUrl(`image_url ${reason}`));

/**
 * The SSRF guard every outbound request to a URL someone gave us goes through
 * (image fetches, webhook deliveries): resolves `host` and vets every address
 * (all public; the test-only loopback allowances aside), returning the one to
 * connect to (pin it with `pinnedLookup`). A refusal is `refuse(reason)`.
 */
export async function vettedAddress(
  host: string,
  opts: Pick<FetchImageOptions, 'allowLoopback' | 'loopbackOnly' | 'resolve'>,
  refuse: (reason: string) => Error,
): Promise<string> {
  let addresses: string[];
  if (opts.loopbackOnly && host !== 'localhost' && !(net.isIP(host) && isLoopback(host))) {
    throw refuse('must point to loopback (test mode)');
  }
  if (net.isIP(host)) {
    addresses = [host];
  } else {
    try {
      addresses = await (opts.resolve ?? systemResolve)(host);
    } catch {
      addresses = [];
    }
    if (addresses.length === 0) throw refuse('host does not resolve');
  }
  // All of them, not just the first: a name that also points inside is refused.
  for (const address of addresses) {
    const verdict = classifyAddress(address);
    if (!verdict.allowed && !(opts.allowLoopback && isLoopback(address))) {
      throw refuse('must point to a public internet address');
    }
  }
  return addresses[0];
}

/** A request's `lookup` that connects to `address` (vetted) instead of resolving again: no DNS-rebinding window. */
export function pinnedLookup(address: string): net.LookupFunction {
  const family = net.isIP(address);
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as unknown as net.LookupFunction;
}

function get(url: URL, host: string, address: string, opts: FetchImageOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const request = url.protocol === 'https:' ? https.request : http.request;
    let settled = false;
    let req: http.ClientRequest | undefined;
    const timer = setTimeout(() => finish(fetchFailed('Fetching image_url timed out')), opts.timeoutMs);
    const finish = (err: DomainError | null, body?: Buffer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) {
        req?.destroy(); // stops the transfer at once (cap passed, timeout, bad status)
        reject(err);
      } else {
        resolve(body!);
      }
    };

    req = request(
      {
        protocol: url.protocol,
        hostname: host, // keeps the Host header and the TLS servername on the URL's host
        port: url.port || undefined,
        path: url.pathname + url.search,
        method: 'GET',
        headers: { accept: 'image/png, image/jpeg, image/webp' },
        agent: false, // a pooled socket could be one connected elsewhere
        ...(url.protocol === 'https:' && !net.isIP(host) ? { servername: host } : {}),
        // Pin the connection to the address vetted above instead of resolving again.
        lookup: pinnedLookup(address),
      },
      (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400) return finish(new DomainError('too_many_redirects', 'image_url redirects; redirects are not followed', 'image_url'));
        if (status < 200 || status >= 300) return finish(fetchFailed(`Fetching image_url answered HTTP ${status}`));
        if (Number(res.headers['content-length']) > opts.maxBytes) return finish(tooLarge(opts.maxBytes));

        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > opts.maxBytes) return finish(tooLarge(opts.maxBytes));
          chunks.push(chunk);
        });
        res.on('end', () => finish(null, Buffer.concat(chunks)));
        res.on('error', () => finish(fetchFailed('Fetching image_url failed')));
        res.on('close', () => !res.complete && finish(fetchFailed('Fetching image_url failed')));
      },
    );
    req.on('error', () => finish(fetchFailed('Fetching image_url failed')));
    req.end();
  });
}
