import { randomBytes, timingSafeEqual } from 'node:crypto';
import { sha256Hex } from './hash';

/**
 * Secrets (API keys, dashboard session tokens) are 256 bits from the CSPRNG,
 * base64url-encoded behind a type prefix. Only their SHA-256 is stored: with
 * that much entropy a fast hash is enough, and lookups stay one indexed read.
 */
export function newSecret(prefix: string): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

export function hashSecret(secret: string): string {
  return sha256Hex(secret);
}

/** Constant-time equality of two hex digests. */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** `ak_` + 43 base64url characters: anything else is malformed before any lookup. */
export const API_KEY_PATTERN = /^ak_[A-Za-z0-9_-]{43}$/;
export const SESSION_TOKEN_PREFIX = 'sess_';

/** First 6 characters, an ellipsis, the last 4 (the spec's key_preview). */
export function keyPreview(secret: string): string {
  return `${secret.slice(0, 6)}…${secret.slice(-4)}`;
}
