import { randomBytes } from 'node:crypto';
import type { RequestHandler } from 'express';

const ID_BYTES = 12;
/** Random bytes drawn 512 ids at a time: one synchronous CSPRNG call per 512 requests, not one per request. */
const POOL_IDS = 512;
let pool = Buffer.alloc(0);
let offset = 0;

export function nextId(): string {
  if (offset + ID_BYTES > pool.length) {
    pool = randomBytes(ID_BYTES * POOL_IDS);
    offset = 0;
  }
  offset += ID_BYTES;
  return `req_${pool.toString('base64url', offset - ID_BYTES, offset)}`;
}

/** Every response carries a `Request-Id` header (Stripe's name), also used in logs. */
export const requestId: RequestHandler = (_req, res, next) => {
  res.setHeader('Request-Id', nextId());
  next();
};
