import express, { type RequestHandler } from 'express';
import { DomainError } from '../errors';

/** JSON bodies up to 1 MB; the upload endpoint has its own streaming limit. */
export const JSON_BODY_LIMIT = '1mb';

const parseJson = express.json({ limit: JSON_BODY_LIMIT, type: () => true });

/**
 * Requests that carry a body must send it as JSON. A body with another declared
 * type is refused with 415 rather than silently ignored; no body at all is fine
 * (action endpoints such as `/activate` take none).
 */
export const jsonBody: RequestHandler = (req, res, next) => {
  const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  if (!hasBody) return next();
  if (!req.is('application/json')) {
    return next(new DomainError('unsupported_media_type', 'Request body must be application/json'));
  }
  parseJson(req, res, next);
};
