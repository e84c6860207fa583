import type { NextFunction, Request, Response } from 'express';
import { z } from 'zod';
import { DomainError } from '../domain/errors';

/**
 * The auction's edge: DomainError codes to HTTP status, the spec's error object
 * `{ error: { message, type, param, code } }`, and zod issues to DomainErrors
 * (`required` for a missing field, `invalid_value` otherwise, `param` the path).
 */
const STATUS: Record<string, { status: number; type: string }> = {
  required: { status: 400, type: 'invalid_request_error' },
  invalid_value: { status: 400, type: 'invalid_request_error' },
  string_too_long: { status: 400, type: 'invalid_request_error' },
  auth_required: { status: 401, type: 'authentication_error' },
  invalid_api_key: { status: 401, type: 'authentication_error' },
  not_found: { status: 404, type: 'invalid_request_error' },
};

export function formatParam(path: ReadonlyArray<PropertyKey>): string | null {
  let out = '';
  for (const segment of path) out += typeof segment === 'number' ? `[${segment}]` : out === '' ? String(segment) : `.${String(segment)}`;
  return out === '' ? null : out;
}

function valueAt(input: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let current = input;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment as string];
  }
  return current;
}

export function zodIssueToError(issue: z.core.$ZodIssue, input: unknown): DomainError {
  const param = formatParam(issue.path);
  const explicit = (issue as { params?: { code?: string } }).params?.code;
  if (explicit) return new DomainError(explicit, issue.message, param);
  const value = valueAt(input, issue.path);
  if (value === undefined && issue.code !== 'custom') return new DomainError('required', `${param ?? 'body'} is required`, param);
  if (issue.code === 'too_small' && issue.origin === 'string' && value === '') return new DomainError('required', `${param} is required`, param);
  if (issue.code === 'unrecognized_keys') {
    const full = formatParam([...issue.path, issue.keys[0]]);
    return new DomainError('invalid_value', `Unknown parameter: ${full}`, full);
  }
  return new DomainError('invalid_value', `${param ?? 'body'}: ${issue.message}`, param);
}

export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw zodIssueToError(result.error.issues[0], input);
}

export function sendError(res: Response, err: DomainError) {
  const entry = STATUS[err.code] ?? { status: 400, type: 'invalid_request_error' };
  res.status(entry.status).json({ error: { message: err.message, type: entry.type, param: err.param, code: err.code } });
}

/** Express error handler: DomainErrors as above, malformed JSON as invalid_value, anything else a 500 without details. */
export function errorHandler(err: unknown, _req: Request, res: Response, _next: NextFunction) {
  if (err instanceof DomainError) return sendError(res, err);
  const status = (err as { status?: number; type?: string }).status;
  if (status === 400 || (err as { type?: string }).type === 'entity.parse.failed') {
    return sendError(res, new DomainError('invalid_value', 'Request body is not valid JSON'));
  }
  if (status === 413) return res.status(413).json({ error: { message: 'Request body too large', type: 'invalid_request_error', param: null, code: 'invalid_value' } });
  if (status === 415) return sendError(res, new DomainError('invalid_value', 'Content-Type must be application/json'));
  console.error('auction: unhandled error', err);
  res.status(500).json({ error: { message: 'Internal server error', type: 'server_error', param: null, code: 'internal_error' } });
}
