import type { IncomingMessage } from 'node:http';
import type { PublisherRecord } from '../domain/publishers';
import { bodyObject, parseOrThrow } from '../lib/validation';
import { adRequestSchema, type AdRequest } from './request-schema';
import { plainJsonLength, withoutBom } from '../lib/http/plain-json';
import type { DirectRoute } from '../lib/http/direct-route';

/**
 * POST /v1/ad_requests on its direct route: the hot path of a service that
 * answers within milliseconds, so the ordinary request (a plain JSON body
 * with a Content-Length) skips Express's generic pipeline (nested routers,
 * body-parser's content negotiation and decoding, res.json) and runs the very
 * same steps itself: the publisher key first (before the body is read), then
 * strict JSON, the operation's schema, the auction, the JSON answer.
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

/** body-parser's rules for a JSON body, errors included (lib/http/errors.ts maps them). */
const bodyError = (type: 'entity.parse.failed' | 'request.size.invalid') => Object.assign(new Error(type), { type, status: 400, expose: true });

function parseStrictJson(text: string): unknown {
  // Like body-parser's `strict` JSON: an object or an array at the top, a leading BOM ignored.
  const body = withoutBom(text);
  const first = /^[\x20\x09\x0a\x0d]*(.)/.exec(body)?.[1];
  if (first !== '{' && first !== '[') throw bodyError('entity.parse.failed');
  try { return JSON.parse(body); } catch { throw bodyError('entity.parse.failed'); }
}

export function directAdRequestRoute(deps: {
  authenticate(req: IncomingMessage): PublisherRecord;
  run(req: IncomingMessage, body: AdRequest, publisher: PublisherRecord): Promise<unknown>;
}): DirectRoute {
  return (req, res, next) => {
    if (req.method !== 'POST' || req.url !== '/v1/ad_requests') return next();
    const length = plainJsonLength(req.headers, DIRECT_MAX_BYTES);
    if (length === null) return next();

    let publisher: PublisherRecord;
    try { publisher = deps.authenticate(req); } catch (err) { return next(err); }

    const chunks: Buffer[] = [];
    let received = 0;
    req.on('data', (chunk: Buffer) => { received += chunk.length; chunks.push(chunk); });
    req.once('error', next);
    req.once('end', () => {
      if (received !== length) return next(bodyError('request.size.invalid'));
      let body: AdRequest;
      try {
        body = parseOrThrow(adRequestSchema, bodyObject(parseStrictJson(Buffer.concat(chunks, received).toString('utf8'))));
      } catch (err) {
        return next(err);
      }
      deps.run(req, body, publisher).then((result) => {
        const text = JSON.stringify(result);
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
        // write() then end(), not end(text): the same bytes in one direct socket write, without
        // end()'s cork and buffered writev (whose socket-owned buffer list kept answers alive past GCs).
        res.write(text);
        res.end();
      }, next);
    });
  };
}
