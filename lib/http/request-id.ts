import { randomBytes } from 'node:crypto';
import type { RequestHandler } from 'express';

/** Every response carries a `Request-Id` header (Stripe's name), also used in logs. */
export const requestId: RequestHandler = (_req, res, next) => {
  res.set('Request-Id', `req_${randomBytes(12).toString('base64url')}`);
  next();
};
