import type { ErrorRequestHandler, Response } from 'express';
import { toApiError } from './errors';

/**
 * The platform surface (`/api/...`) answers in the envelope
 * `{ success, data, error, meta }`; `/v1` never does.
 */
export function sendEnvelope(res: Response, status: number, data: object): void {
  res.status(status).json({ success: true, data, error: null, meta: { request_id: res.get('Request-Id') } });
}

/** Errors on the platform surface: the same codes as `/v1`, inside the envelope. */
export const envelopeErrorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  const apiError = toApiError(err);
  if (apiError.status >= 500) {
    console.error(JSON.stringify({ level: 'error', request_id: res.get('Request-Id'), path: req.path, error: String((err as Error)?.stack ?? err) }));
  }
  if (res.headersSent) return;
  res.set(apiError.headers).status(apiError.status).json({
    success: false,
    data: null,
    error: { code: apiError.code, message: apiError.message, param: apiError.param },
    meta: { request_id: res.get('Request-Id') },
  });
};
