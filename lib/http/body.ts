import express, { type RequestHandler } from 'express';
import { DomainError } from '../errors';
import { plainJsonLength, readPlainJsonBody } from './plain-json';

/** JSON bodies up to 1 MB; the upload endpoint has its own streaming limit. */
export const JSON_BODY_LIMIT = '1mb';
const JSON_BODY_LIMIT_BYTES = 1024 * 1024;

const parseJson = express.json({ limit: JSON_BODY_LIMIT, type: () => true });

/**
 * Requests that carry a body must send it as JSON. A body with another declared
 * type is refused with 415 rather than silently ignored; no body at all is fine
 * (action endpoints such as `/activate` take none). A plain body (plain-json.ts,
 * what nearly every caller sends) is read directly, any other by body-parser:
 * the same `req.body` and the same errors either way.
 */
export const jsonBody: RequestHandler = (req, res, next) => {
  const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  if (!hasBody) return next();
  const length = plainJsonLength(req.headers, JSON_BODY_LIMIT_BYTES);
  if (length !== null && !(req as { _body?: boolean })._body) {
    // body-parser's mark that the body was read: a second reader on the same request does not wait for it.
    (req as { _body?: boolean })._body = true;
    readPlainJsonBody(req, length).then((body) => {
      req.body = body;
      next();
    }, next);
    return;
  }
  if (!req.is('application/json')) {
    return next(new DomainError('unsupported_media_type', 'Request body must be application/json'));
  }
  parseJson(req, res, next);
};
