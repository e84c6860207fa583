import type { IncomingMessage } from 'node:http';
import type { PublisherRecord } from '../domain/publishers';
import type { AdRequest } from './request-schema';
import { parseAdRequest } from './request-fast-path';
import { plainJsonLength } from '../lib/http/plain-json';
import { readPlainJsonBody, writeJson, type DirectRoute } from '../lib/http/direct-route';

/**
 * POST /v1/ad_requests on its direct route: the hot path of a service that
 * answers within milliseconds, so the ordinary request (a plain JSON body
 * with a Content-Length) skips Express's generic pipeline (nested routers,
 * body-parser's content negotiation and decoding, res.json) and runs the very
 * same steps itself: the publisher key first (before the body is read), then
 * strict JSON, the operation's schema (its common case checked by request-fast-path.ts), the auction, the JSON answer.
 *
 * It runs on node's own request and response, before Express sees the
 * request at all (auction/app.ts): no router closures, no prototype swap, no
 * final handler per request, less for the young-generation GC to copy while
 * the DSPs answer. Anything else (another method or path, chunked, compressed
 * or non-UTF-8 bodies, large ones, an empty one) is handed to Express
 * (`fallThrough()`), whose general chain (auction/openapi.ts's operation)
 * answers it as before; every error here is handed over too
 * (`fallThrough(err)`) and reaches the same error handler.
 */

const DIRECT_MAX_BYTES = 256 * 1024;

export function directAdRequestRoute(deps: {
  authenticate(req: IncomingMessage): PublisherRecord;
  run(req: IncomingMessage, body: AdRequest, publisher: PublisherRecord): Promise<unknown>;
}): DirectRoute {
  return (req, res, next) => {
    if (req.method !== 'POST' || req.url !== '/v1/ad_requests') return next();
    const length = plainJsonLength(req.headers, DIRECT_MAX_BYTES);
    if (length === null) return next();

    let publisher: PublisherRecord;
    try {
      publisher = deps.authenticate(req);
    } catch (err) {
      return next(err);
    }

    readPlainJsonBody(req, length)
      .then((raw) => deps.run(req, parseAdRequest(raw), publisher))
      .then((result) => writeJson(res, 200, result), next);
  };
}
