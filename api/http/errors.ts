import type { ErrorRequestHandler, RequestHandler } from 'express';

/** The four error types of the spec's error object. */
export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'rate_limit_error'
  | 'server_error';

/** The spec's error object, `{ error: { message, type, param, code } }`. */
export interface ErrorBody {
  error: { message: string; type: ErrorType; param: string | null; code: string };
}

/**
 * The one error every layer throws. The error middleware turns it into the
 * spec's error object; anything else becomes a generic 500 (no stack traces).
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly param: string | null = null,
    readonly type: ErrorType = defaultType(status),
    /** Extra response headers (Retry-After on 429, for example). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** The same error about another parameter (a shared check reused under a caller's path). */
  withParam(param: string | null): ApiError {
    return new ApiError(this.status, this.code, this.message, param, this.type, this.headers);
  }

  toBody(): ErrorBody {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

function defaultType(status: number): ErrorType {
  if (status === 401) return 'authentication_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

// Shorthands for the codes used across many handlers.
export const required = (param: string, message = `${param} is required`) =>
  new ApiError(400, 'required', message, param);
export const invalidValue = (param: string | null, message: string) =>
  new ApiError(400, 'invalid_value', message, param);
export const notFound = (what: string, param: string | null = null) =>
  new ApiError(404, 'not_found', `No such ${what}`, param);

/** Errors thrown by body-parser and friends carry `type` and `status`. */
function fromBodyParserError(err: { type?: string; status?: number }): ApiError | null {
  switch (err.type) {
    case 'entity.parse.failed':
      return new ApiError(400, 'invalid_json', 'Request body is not valid JSON');
    case 'entity.too.large':
      return new ApiError(413, 'body_too_large', 'Request body is too large');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new ApiError(415, 'unsupported_media_type', 'Unsupported request body encoding');
    default:
      return null;
  }
}

export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  // The router throws URIError for a path parameter with a broken %-escape; such a
  // URL names no resource (as on routes without parameters), and it is no 500.
  if (err instanceof URIError) return new ApiError(404, 'not_found', 'Unrecognized request URL (malformed percent-encoding)');
  const parsed = err && typeof err === 'object' ? fromBodyParserError(err as { type?: string }) : null;
  if (parsed) return parsed;
  // The body reader marks the client's other faults (a corrupt gzip/deflate/br body,
  // a body shorter than its Content-Length) as an exposable 400: the body is unreadable.
  const { status, expose } = (err ?? {}) as { status?: unknown; expose?: unknown };
  if (expose === true && status === 400) {
    return new ApiError(400, 'invalid_json', 'Request body could not be read');
  }
  return new ApiError(500, 'internal_error', 'An internal error occurred; it has been logged', null, 'server_error');
}

export function sendError(res: import('express').Response, err: ApiError): void {
  res.set(err.headers).status(err.status).json(err.toBody());
}

/** Last middleware of the `/v1` surface: every error leaves as the spec's error object. */
export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  const apiError = toApiError(err);
  if (apiError.status >= 500) {
    console.error(JSON.stringify({ level: 'error', request_id: res.get('Request-Id'), path: req.path, error: String((err as Error)?.stack ?? err) }));
  }
  if (res.headersSent) return;
  sendError(res, apiError);
};

/** Unknown routes answer 404 with the error object, never an HTML page. */
export const unknownRoute: RequestHandler = (req, _res, next) => {
  next(new ApiError(404, 'not_found', `Unrecognized request URL (${req.method} ${req.path})`));
};
