import { newAuctionId } from '../../domain/ids';
import type { IncomingMessage } from 'node:http';
import { DomainError } from '../../domain/errors';
import type { PublisherRecord } from '../../domain/publishers';
import { PUBLISHER_KEY_PATTERN } from '../../domain/publishers';
import { hashSecret } from '../../lib/secrets';
import type { AdRequest } from '../request-schema';
import type { AuctionContext } from '../types';
import { blocksOf } from '../publisher/blocks';
import { conversationWindow } from '../conversation-window';
import { privacyDecision } from '../../domain/privacy';

/**
 * Stage 1, intake: authenticate the publisher (its key's SHA-256 looked up in
 * the in-memory map: an exact-match lookup of a digest of a 256-bit secret, so
 * no timing side channel worth a DB query); the body arrives validated (the
 * operation's schema, lib/http/operations.ts); fix the auction's deadline: min(publisher's tmax, body tmax), 2000 ms at most;
 * its floor (the higher of the platform's and the publisher's) and its blocks (the publisher's and the request's bcat / badv);
 * the conversation's window, the only part of `messages` later stages read (auction/conversation-window.ts);
 * the privacy decision (domain/privacy: its consent strings decoded once, here; one that does not decode is a 400).
 */
export function authenticatePublisher(authorization: string | undefined, publishers: ReadonlyMap<string, PublisherRecord>): PublisherRecord {
  if (!authorization) throw new DomainError('auth_required', 'Authorization header with a publisher key is required');
  const match = /^Bearer (\S+)$/.exec(authorization);
  const key = match?.[1];
  const publisher = key && PUBLISHER_KEY_PATTERN.test(key) ? publishers.get(hashSecret(key)) : undefined;
  if (!publisher) throw new DomainError('invalid_api_key', 'Invalid publisher key');
  return publisher;
}

export function intake(req: IncomingMessage, request: AdRequest, publisher: PublisherRecord, platformFloorMicros: number): AuctionContext {
  const tmaxMs = Math.min(publisher.tmaxMs, request.tmax ?? 2000, 2000);
  const startedAt = performance.now();
  return {
    auctionId: newAuctionId(),
    startedAt,
    deadlineAt: startedAt + tmaxMs,
    tmaxMs,
    request,
    window: conversationWindow(request.messages),
    publisher,
    privacy: privacyDecision(request, request.country_code, publisher),
    userIp: request.ip ?? (req.socket.remoteAddress ?? '').replace(/^::ffff:/, ''),
    userAgent: request.user_agent ?? req.headers['user-agent'] ?? '',
    headerLanguage: req.headers['accept-language'] ?? undefined,
    floorMicros: Math.max(platformFloorMicros, publisher.floorMicros),
    blocks: blocksOf(publisher, request),
    audience: undefined,
    safety: undefined,
  };
}
