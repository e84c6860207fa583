import { z } from 'zod';
import { sha256Hex } from '../../lib/hash';
import type { Db } from '../../lib/db';
import { isUniqueViolation } from '../../lib/db';
import { DomainError } from '../../domain/errors';

/**
 * Stripe-style `Idempotency-Key`, implemented once for every endpoint that
 * takes it. The first response (status and body, errors included) is stored
 * and replayed for the same key forever; the same key with another request is
 * 409 `idempotency_key_reused`.
 *
 * Concurrency: the first request inserts a pending record. A concurrent request
 * with the same key runs `execute` as well: endpoints make that safe by keying
 * their side effects on the key (the campaign saga's workflow id derives from
 * it, so both attach to one workflow and one charge). Only the first completion
 * is stored; everyone answers with the stored response.
 */
export interface StoredResponse {
  status: number;
  body: unknown;
}

export const IDEMPOTENCY_HEADER = 'idempotency-key';
const MAX_KEY_LENGTH = 255;
/** The header's value as documented (parseIdempotencyKey enforces the same). */
export const idempotencyKeySchema = z.string().min(1).max(MAX_KEY_LENGTH);

/** Canonical JSON (sorted keys), so key order in the body does not matter. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function requestFingerprint(method: string, path: string, body: unknown): string {
  return sha256Hex(`${method} ${path}\n${canonical(body ?? null)}`);
}

export function parseIdempotencyKey(raw: string | undefined): string | null {
  if (raw === undefined) return null;
  if (raw.length === 0 || raw.length > MAX_KEY_LENGTH) {
    throw new DomainError('invalid_value', `Idempotency-Key must be 1-${MAX_KEY_LENGTH} characters`, 'Idempotency-Key');
  }
  return raw;
}

const reused = () => new DomainError('idempotency_key_reused', 'This Idempotency-Key was already used with a different request');

export async function withIdempotency(
  db: Db,
  scope: { organizationId: string; key: string; fingerprint: string },
  execute: () => Promise<StoredResponse>,
): Promise<StoredResponse & { replayed: boolean }> {
  const { organizationId, key, fingerprint } = scope;
  try {
    await db.idempotencyRecord.create({ data: { organizationId, key, requestHash: fingerprint } });
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    const existing = await db.idempotencyRecord.findUniqueOrThrow({ where: { organizationId_key: { organizationId, key } } });
    if (existing.requestHash !== fingerprint) throw reused();
    if (existing.completedAt) return { status: existing.responseStatus!, body: existing.responseBody, replayed: true };
  }

  const response = await execute();
  // First completion wins; a concurrent twin reads back what was stored.
  await db.idempotencyRecord.updateMany({
    where: { organizationId, key, completedAt: null },
    data: { responseStatus: response.status, responseBody: response.body as object, completedAt: new Date() },
  });
  const stored = await db.idempotencyRecord.findUniqueOrThrow({ where: { organizationId_key: { organizationId, key } } });
  return { status: stored.responseStatus!, body: stored.responseBody, replayed: false };
}
