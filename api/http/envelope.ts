import type { ErrorRequestHandler, Response } from 'express';
import { errorHeaders, logServerError, toErrorResponse } from '../../lib/http/errors';

/**
 * The platform surface (`/api/...`) answers in the envelope
 * `{ success, data, error, meta }`; `/v1` never does.
 */
export function sendEnvelope(res: Response, status: number, data: unknown): void {
  res.status(status).json({ success: true, data, error: null, meta: { request_id: res.get('Request-Id') } });
}

/** Errors on the platform surface: the same codes as `/v1`, inside the envelope. */
export const envelopeErrorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  const answer = toErrorResponse(err);
  if (answer.status >= 500) logServerError(res, req.path, err);
  if (res.headersSent) return;
  res
    .set(errorHeaders(err))
    .status(answer.status)
    .json({
      success: false,
      data: null,
      error: { code: answer.code, message: answer.message, param: answer.param },
      meta: { request_id: res.get('Request-Id') },
    });
};
