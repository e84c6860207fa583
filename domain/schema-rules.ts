import { z } from 'zod';

/**
 * Building blocks of the request schemas of every concept. Error codes come
 * from the one mapping in lib/validation.ts; where the spec names another
 * code for a field, a check sets it through `params.code` (see `fail`).
 * Request bodies are strict: an unknown parameter is 400 `invalid_value` naming
 * it, as Stripe does, so a misspelt field never passes silently.
 */

export const STATUSES = ['active', 'paused', 'archived'] as const;
export type Status = (typeof STATUSES)[number];
export const statusInput = z.enum(STATUSES);
export const MAX_NAME = 255;
/** 9999-12-31T23:59:59Z: the last second a Date (and Postgres) round-trips. */
const MAX_UNIX_SECONDS = 253_402_300_799;

export type Ctx = z.core.$RefinementCtx;

/** Adds an issue that lib/validation.ts reports with exactly `code`. */
export function fail(ctx: Ctx, code: string, message: string, path: PropertyKey[] = []): void {
  ctx.addIssue({ code: 'custom', message, path, params: { code } });
}

export const isPlainObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Any failure of `schema` (missing included) is one `invalid_value` on the field itself. */
export function asOneValue<S extends z.ZodType>(schema: S, message: string) {
  return z.preprocess((value, ctx) => {
    if (!schema.safeParse(value).success) fail(ctx, 'invalid_value', message);
    return value;
  }, schema);
}

/** A field the body must not carry: sending it at all is a 400 with `code`. */
export function refusedField(code: string, message: string) {
  return z
    .preprocess((value, ctx) => {
      fail(ctx, code, message);
      return value;
    }, z.never())
    .optional()
    .describe(message);
}

/**
 * Ids of other resources: anything unknown or malformed is a 404 on lookup, not a
 * format error. A NUL in one is malformed like anything else: it becomes U+FFFD,
 * so the id stays no UUID (a 404, never the 400 parseOrThrow gives NUL in text).
 */
export const resourceId = (what: string) =>
  z
    .string()
    .min(1)
    .transform((id) => id.replaceAll('\0', '\uFFFD'))
    .describe(`UUID of the ${what}`);

export const unixSeconds = z.int().min(0).max(MAX_UNIX_SECONDS).describe('Unix seconds (UTC)');

/**
 * An absolute http(s) URL with a plain host name or IPv4 address: the pattern
 * is what the OpenAPI document states, and the URL parser confirms it.
 */
export const HTTP_URL_PATTERN = /^https?:\/\/[A-Za-z0-9.-]+(:[0-9]{1,4})?([/?#][^\s]*)?$/;
export const httpUrl = (max: number, message: string) => z.string().min(1).max(max).regex(HTTP_URL_PATTERN, message).refine(isHttpUrl, message);

export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}
