import { randomUUID } from 'node:crypto';
import type { Request } from 'express';
import { DomainError } from '../../domain/errors';
import type { PublisherRecord } from '../../domain/publishers';
import { PUBLISHER_KEY_PATTERN } from '../../domain/publishers';
import { hashSecret } from '../../lib/secrets';
import { parseOrThrow } from '../http-errors';
import { adRequestSchema } from '../request-schema';
import type { AuctionContext } from '../types';

/**
 * Stage 1, intake: authenticate the publisher (its key's SHA-256 looked up in
 * the in-memory map: an exact-match lookup of a digest of a 256-bit secret, so
 * no timing side channel worth a DB query), validate the body, and fix the
 * auction's deadline: min(publisher's tmax, body tmax), 2000 ms at most.
 */
export function authenticatePublisher(authorization: string | undefined, publishers: ReadonlyMap<string, PublisherRecord>): PublisherRecord {
  if (!authorization) throw new DomainError('auth_required', 'Authorization header with a publisher key is required');
  const match = /^Bearer (\S+)$/.exec(authorization);
  const key = match?.[1];
  const publisher = key && PUBLISHER_KEY_PATTERN.test(key) ? publishers.get(hashSecret(key)) : undefined;
  if (!publisher) throw new DomainError('invalid_api_key', 'Invalid publisher key');
  return publisher;
}

export function intake(req: Request, publisher: PublisherRecord, floorMicros: number): AuctionContext {
  if (!req.is('application/json')) throw new DomainError('invalid_value', 'Content-Type must be application/json');
  const body = req.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new DomainError('invalid_value', 'Request body must be a JSON object');
  const request = parseOrThrow(adRequestSchema, body);
  const tmaxMs = Math.min(publisher.tmaxMs, request.tmax ?? 2000, 2000);
  const startedAt = performance.now();
  return {
    auctionId: randomUUID(),
    startedAt,
    deadlineAt: startedAt + tmaxMs,
    tmaxMs,
    request,
    publisher,
    userIp: request.ip ?? (req.socket.remoteAddress ?? '').replace(/^::ffff:/, ''),
    userAgent: request.user_agent ?? req.get('user-agent') ?? '',
    headerLanguage: req.get('accept-language') ?? undefined,
    floorMicros,
  };
}
