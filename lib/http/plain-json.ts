import type { IncomingHttpHeaders } from 'node:http';

/**
 * What JSON senders almost always send: `application/json` (UTF-8),
 * uncompressed, not chunked, with a Content-Length within `maxBytes`. The hot
 * endpoints (the auction's ad requests, `/api/collect`) read such a body
 * themselves, as body-parser would, for a fraction of its cost, and hand every
 * other body to body-parser. Returns the declared length, or null when the
 * request is not plain.
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
