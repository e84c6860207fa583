import type { ServerResponse } from 'node:http';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { DomainError, InvalidRequestError, RateLimitError, rateBudgetHeaders } from '../errors';
import { ERROR_CODES, errorTypeOf, isKnownCode, type ErrorType } from './error-codes';

/** The spec's error object, `{ error: { message, type, param, code } }`. */
export interface ErrorBody {
  error: ErrorObject;
  /** Extension: every field's error when a body breaks several rules (the first is `error`). */
  errors?: ErrorObject[];
}
type ErrorObject = { message: string; type: ErrorType; param: string | null; code: string };

export interface ErrorResponse {
  status: number;
  code: string;
  message: string;
  param: string | null;
  body: ErrorBody;
}

const internalError = () => new DomainError('internal_error', 'An internal error occurred; it has been logged');

/** Errors thrown by body-parser and friends carry `type` and `status`. */
function fromBodyParserError(err: { type?: string; status?: number }): DomainError | null {
  switch (err.type) {
    case 'entity.parse.failed':
      return new DomainError('invalid_json', 'Request body is not valid JSON');
    case 'entity.too.large':
      return new DomainError('body_too_large', 'Request body is too large');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new DomainError('unsupported_media_type', 'Unsupported request body encoding');
    default:
      return null;
  }
}

/** Anything thrown, as the platform's error; unexpected failures become `internal_error`. */
export function toDomainError(err: unknown): DomainError {
  if (err instanceof DomainError) return isKnownCode(err.code) ? err : internalError();
  // The router throws URIError for a path parameter with a broken %-escape; such a
  // URL names no resource (as on routes without parameters), and it is no 500.
  if (err instanceof URIError) return new DomainError('not_found', 'Unrecognized request URL (malformed percent-encoding)');
  const parsed = err && typeof err === 'object' ? fromBodyParserError(err) : null;
  if (parsed) return parsed;
  // The body reader marks the client's other faults (a corrupt gzip/deflate/br body,
  // a body shorter than its Content-Length) as an exposable 400: the body is unreadable.
  const { status, expose } = (err ?? {}) as { status?: unknown; expose?: unknown };
  if (expose === true && status === 400) return new DomainError('invalid_json', 'Request body could not be read');
  return internalError();
}

/** The HTTP answer to an error: its status from the one table, the spec's error object. */
export function toErrorResponse(err: unknown): ErrorResponse {
  const domain = toDomainError(err);
  const { code, message, param } = domain;
  const status = ERROR_CODES[code as keyof typeof ERROR_CODES].status;
  const object = (e: DomainError): ErrorObject => ({
    message: e.message,
    type: errorTypeOf(ERROR_CODES[e.code as keyof typeof ERROR_CODES].status),
    param: e.param,
    code: e.code,
  });
  const body: ErrorBody = { error: object(domain) };
  if (domain instanceof InvalidRequestError) body.errors = domain.all.filter((e) => isKnownCode(e.code)).map(object);
  return { status, code, message, param, body };
}

/** Headers an error answer carries besides its body: on a throttled request, `Retry-After` and the budget's. */
export function errorHeaders(err: unknown): Record<string, string> {
  if (!(err instanceof RateLimitError)) return {};
  return { ...(err.budget ? rateBudgetHeaders(err.budget) : {}), 'Retry-After': String(err.retryAfterSeconds) };
}

/** Logs what answers 5xx (with the stack, never sent to the client). */
export function logServerError(res: ServerResponse, path: string, err: unknown): void {
  const unregistered = err instanceof DomainError && !isKnownCode(err.code) ? ` (unregistered error code ${err.code})` : '';
  console.error(
    JSON.stringify({ level: 'error', request_id: res.getHeader('Request-Id'), path, error: `${String((err as Error)?.stack ?? err)}${unregistered}` }),
  );
}

/** Last middleware of a surface that answers with the spec's error object. */
export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => writeError(res, req.path, err);

/** errorHandler's answer, written on node's own response (the bytes and headers res.json would write). */
export function writeError(res: ServerResponse, path: string, err: unknown): void {
  const answer = toErrorResponse(err);
  if (answer.status >= 500) logServerError(res, path, err);
  if (res.headersSent) return;
  const text = JSON.stringify(answer.body);
  res.writeHead(answer.status, { ...errorHeaders(err), 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/** Unknown routes answer 404 with the error object, never an HTML page. */
export const unknownRoute: RequestHandler = (req, _res, next) => {
  next(new DomainError('not_found', `Unrecognized request URL (${req.method} ${req.path})`));
};
