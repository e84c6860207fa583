import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';

/**
 * What JSON senders almost always send: `application/json` (UTF-8),
 * uncompressed, not chunked, with a Content-Length within `maxBytes`. Such a
 * body is read here, as body-parser would, for a fraction of its cost
 * (lib/http/body.ts, api/events/collect.ts); every other body goes to
 * body-parser. Returns the declared length, or null when the request is not plain.
 */
const PLAIN_JSON_TYPE = /^application\/json\s*(;\s*charset="?utf-8"?\s*)?$/i;

export function plainJsonLength(headers: IncomingHttpHeaders, maxBytes: number): number | null {
  const type = headers['content-type'];
  if (!type || !PLAIN_JSON_TYPE.test(type)) return null;
  if (headers['transfer-encoding'] !== undefined || (headers['content-encoding'] ?? 'identity').toLowerCase() !== 'identity') return null;
  const length = Number(headers['content-length']);
  return Number.isInteger(length) && length > 0 && length <= maxBytes ? length : null;
}

/** The body's text without a leading byte-order mark (body-parser drops it too). */
export const withoutBom = (text: string) => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

/** body-parser's error for a body it could not take (lib/http/errors.ts maps its `type`, or a 400 `expose`). */
const bodyError = (type: 'entity.parse.failed' | 'request.size.invalid' | 'request.aborted') =>
  Object.assign(new Error(type), { type, status: 400, expose: true });

/**
 * A plain JSON body of `length` bytes (plainJsonLength said so), read and
 * parsed as body-parser would, a leading BOM dropped; `strict` (its default)
 * takes only an object or an array at the top. Errors are body-parser's, so
 * the answers match whichever reader took the body.
 */
export function readPlainJsonBody(req: IncomingMessage, length: number, { strict = true } = {}): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let ended = false;
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      chunks.push(chunk);
    });
    req.once('end', () => {
      ended = true;
      if (received !== length) return reject(bodyError('request.size.invalid'));
      const text = withoutBom((chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received)).toString('utf8'));
      if (strict) {
        const first = /^[\x20\x09\x0a\x0d]*(.)/.exec(text)?.[1];
        if (first !== '{' && first !== '[') return reject(bodyError('entity.parse.failed'));
      }
      try {
        resolve(JSON.parse(text));
      } catch {
        reject(bodyError('entity.parse.failed'));
      }
    });
    const aborted = () => {
      if (!ended) reject(bodyError('request.aborted'));
    };
    req.once('error', aborted);
    req.once('close', aborted);
  });
}

/**
 * res.json's bytes and headers, written on node's own response. write() then
 * end(), not end(text): the same bytes in one direct socket write, without
 * end()'s cork and buffered writev (whose socket-owned buffer list kept
 * answers alive past GCs).
 */
export function writeJson(res: ServerResponse, status: number, payload: unknown): void {
  const text = JSON.stringify(payload);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.write(text);
  res.end();
}
