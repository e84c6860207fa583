import { createHmac, timingSafeEqual } from 'node:crypto';
import { config } from './config';

/**
 * Signed, expiring tokens for URLs handed to end users (tracking pixels, click
 * redirects, feedback, poll votes), in two forms. A JSON token (signToken) is
 * `<kid>.<payload>.<signature>`: the payload is base64url JSON carrying `exp`
 * (Unix seconds) and whatever the caller binds; the signature is HMAC-SHA256
 * over `<kid>.<payload>` with the key named by `kid`. A bound token
 * (signBoundToken, the delivery trackers') carries `exp` in its own segment and
 * a body of the caller's encoding, and its signature also covers a purpose the
 * verifier supplies. New tokens are signed with the current key; every
 * configured key still verifies, so keys rotate without breaking live URLs.
 *
 * Keys come from `TRACKING_SIGNING_KEYS` (`kid:secret,kid:secret`, current first).
 */
export interface SigningKeys {
  currentKid: string;
  keys: ReadonlyMap<string, Buffer>;
}

export function parseSigningKeys(spec: string): SigningKeys {
  const keys = new Map<string, Buffer>();
  for (const entry of spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const colon = entry.indexOf(':');
    const kid = entry.slice(0, colon);
    const secret = entry.slice(colon + 1);
    if (colon < 1 || !/^[A-Za-z0-9_-]+$/.test(kid) || secret.length < 16) {
      throw new Error('TRACKING_SIGNING_KEYS entries must be kid:secret (kid [A-Za-z0-9_-], secret >= 16 chars)');
    }
    keys.set(kid, Buffer.from(secret, 'utf8'));
  }
  const currentKid = keys.keys().next().value;
  if (currentKid === undefined) throw new Error('TRACKING_SIGNING_KEYS has no key');
  return { currentKid, keys };
}

let defaultKeys: SigningKeys | undefined;
const configuredKeys = () => {
  if (config.signing.trackingKeys === undefined) throw new Error('TRACKING_SIGNING_KEYS is not set (only development and test have a built-in key)');
  return (defaultKeys ??= parseSigningKeys(config.signing.trackingKeys));
};

const mac = (key: Buffer, data: string) => createHmac('sha256', key).update(data).digest();

/** Signs `payload` (which must not carry `exp`) valid for `ttlSeconds`. */
export function signToken(payload: Record<string, unknown>, ttlSeconds: number, keys: SigningKeys = configuredKeys(), now = Date.now()): string {
  const body = Buffer.from(JSON.stringify({ ...payload, exp: Math.floor(now / 1000) + ttlSeconds })).toString('base64url');
  const signed = `${keys.currentKid}.${body}`;
  return `${signed}.${mac(keys.keys.get(keys.currentKid)!, signed).toString('base64url')}`;
}

/**
 * A token bound to a purpose: `<kid>.<exp>.<body>.<signature>`, the signature
 * HMAC-SHA256 over `<purpose>.<kid>.<exp>.<body>`. The purpose (a tracking
 * URL's kind) is not in the token: its verifier supplies it, so a token is
 * genuine for its own purpose only, and the tokens of one delivery can share
 * their body's bytes. `body` is URL-safe text (dots allowed); a purpose has no dot.
 */
export function signBoundToken(purpose: string, body: string, ttlSeconds: number, keys: SigningKeys = configuredKeys(), now = Date.now()): string {
  const signed = `${keys.currentKid}.${Math.floor(now / 1000) + ttlSeconds}.${body}`;
  return `${signed}.${mac(keys.keys.get(keys.currentKid)!, `${purpose}.${signed}`).toString('base64url')}`;
}

/** Bound tokens carry their claims in their body: a URL's longest (4 KB) with the rest fits. */
const MAX_BOUND_TOKEN = 8192;
const EXP = /^[0-9]{1,12}$/;

/** A genuine bound token's body and whether it has expired, or null when it is not genuine for `purpose`. */
export function inspectBoundToken(
  token: unknown,
  purpose: string,
  keys: SigningKeys = configuredKeys(),
  now = Date.now(),
): { body: string; expired: boolean } | null {
  if (typeof token !== 'string' || token.length > MAX_BOUND_TOKEN) return null;
  const kidEnd = token.indexOf('.');
  const expEnd = token.indexOf('.', kidEnd + 1);
  const bodyEnd = token.lastIndexOf('.');
  if (kidEnd < 1 || expEnd < 0 || bodyEnd <= expEnd) return null;
  const key = keys.keys.get(token.slice(0, kidEnd));
  const exp = token.slice(kidEnd + 1, expEnd);
  if (!key || !EXP.test(exp)) return null;
  const expected = mac(key, `${purpose}.${token.slice(0, bodyEnd)}`);
  const given = Buffer.from(token.slice(bodyEnd + 1), 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  return { body: token.slice(expEnd + 1, bodyEnd), expired: Number(exp) * 1000 <= now };
}

/**
 * The payload of a genuine, unexpired token, or null for anything else
 * (malformed, unknown key, tampered, expired): callers answer all of those alike.
 */
export function verifyToken<T extends Record<string, unknown>>(
  token: unknown,
  keys: SigningKeys = configuredKeys(),
  now = Date.now(),
): (T & { exp: number }) | null {
  const genuine = inspectToken<T>(token, keys, now);
  return genuine && !genuine.expired ? genuine.payload : null;
}

/**
 * A genuine token's payload and whether it has expired, or null when it is not
 * genuine (malformed, unknown key, tampered). For callers that still honour an
 * expired token in part (a click redirect to the signed target, uncounted).
 */
export function inspectToken<T extends Record<string, unknown>>(
  token: unknown,
  keys: SigningKeys = configuredKeys(),
  now = Date.now(),
): { payload: T & { exp: number }; expired: boolean } | null {
  if (typeof token !== 'string' || token.length > 4096) return null;
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  const [kid, body, signature] = parts;
  const key = keys.keys.get(kid);
  if (!key) return null;
  const expected = mac(key, `${kid}.${body}`);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!payload || typeof payload !== 'object' || typeof (payload as { exp?: unknown }).exp !== 'number') return null;
  const typed = payload as T & { exp: number };
  return { payload: typed, expired: typed.exp * 1000 <= now };
}
