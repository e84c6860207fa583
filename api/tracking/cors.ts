import type { RequestHandler } from 'express';
import { TRACKING_PATHS } from '../../domain/delivery/tracking-token';

const TRACKED = new Set<string>(Object.values(TRACKING_PATHS));

/**
 * The chat host's page (any origin) calls the trackers from the browser: feedback, a poll's
 * vote and results are JSON requests across origins (the SDK, docs/sdk.md). The signed token
 * in the URL is the only authorization and no cookie is read, so any origin may call them and
 * read the answer; credentials are never allowed.
 */
export const trackingCors: RequestHandler = (req, res, next) => {
  if (!TRACKED.has(req.path)) return next();
  res.set('Access-Control-Allow-Origin', '*');
  if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
    res.set('Access-Control-Allow-Methods', 'GET, POST');
    res.set('Access-Control-Allow-Headers', 'Content-Type');
    res.set('Access-Control-Max-Age', '86400');
    res.status(204).end();
    return;
  }
  next();
};
