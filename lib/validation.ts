import { z } from 'zod';
import { DomainError, InvalidRequestError } from './errors';

/**
 * Turns zod validation into the spec's error object. Schemas stay declarative;
 * the mapping to `required` / `string_too_long` / `invalid_value` and the
 * `param` path is decided here once:
 *  - a missing or empty-string required field -> `required` (an explicit `null`
 *    is a value of the wrong type: `invalid_value`, so optional fields that reject
 *    null never claim to be required)
 *  - a string over its maximum length -> `string_too_long`
 *  - anything else (wrong type, out of range, unknown enum value) -> `invalid_value`
 * Schemas may also set an explicit code through `params: { code }` on a refinement.
 */

/** `ad_groups[0].ads[1].creative.title`: dots for fields, brackets for array items. */
export function formatParam(path: ReadonlyArray<PropertyKey>): string | null {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? String(segment) : `.${String(segment)}`;
  }
  return out === '' ? null : out;
}

function valueAt(input: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let current: unknown = input;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment as string];
  }
  return current;
}

function issueToError(issue: z.core.$ZodIssue, input: unknown): DomainError {
  const param = formatParam(issue.path);
  const explicit = (issue as { params?: { code?: string } }).params?.code;
  if (explicit) return new DomainError(explicit, issue.message, param);
  const value = valueAt(input, issue.path);
  // A missing enum field is zod's `invalid_value` with no input: still `required`, as documented above.
  if ((issue.code === 'invalid_type' || issue.code === 'invalid_value') && value === undefined) {
    return new DomainError('required', `${param ?? 'body'} is required`, param);
  }
  if (issue.code === 'too_small' && issue.origin === 'string' && value === '') {
    return new DomainError('required', `${param} is required`, param);
  }
  if (issue.code === 'too_small' && issue.origin === 'array' && Array.isArray(value) && value.length === 0 && issue.minimum === 1) {
    return new DomainError('required', `${param} must contain at least one item`, param);
  }
  if (issue.code === 'too_big' && issue.origin === 'string') {
    return new DomainError('string_too_long', `${param} must be at most ${issue.maximum} characters`, param);
  }
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0];
    const full = formatParam([...issue.path, key]);
    return new DomainError('invalid_value', `Unknown parameter: ${full}`, full);
  }
  return new DomainError('invalid_value', `${param ?? 'body'}: ${issue.message}`, param);
}

/**
 * The path of the first string (value or object key) holding a NUL character,
 * or null. PostgreSQL text cannot store NUL, so such input would fail deep in
 * a query; it is refused here, the one place every body, query filter and
 * pagination parameter is parsed. Iterative: a deeply nested body cannot
 * exhaust the stack.
 */
export function nulCharacterPath(input: unknown): PropertyKey[] | null {
  // The common case (no NUL anywhere) is answered without building a path per value.
  if (!hasNulCharacter(input)) return null;
  const pending: { value: unknown; path: PropertyKey[] }[] = [{ value: input, path: [] }];
  while (pending.length) {
    const { value, path } = pending.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\0')) return path;
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) pending.push({ value: value[i], path: [...path, i] });
    } else if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value);
      for (const [key] of entries) if (key.includes('\0')) return [...path, key];
      for (let i = entries.length - 1; i >= 0; i--) pending.push({ value: entries[i][1], path: [...path, entries[i][0]] });
    }
  }
  return null;
}

/** Whether any string (value or object key) in `input` holds a NUL character; iterative, like nulCharacterPath. */
function hasNulCharacter(input: unknown): boolean {
  const pending: unknown[] = [input];
  while (pending.length) {
    const value = pending.pop();
    if (typeof value === 'string') {
      if (value.includes('\0')) return true;
    } else if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) pending.push(value[i]);
    } else if (value !== null && typeof value === 'object') {
      for (const key of Object.keys(value)) {
        if (key.includes('\0')) return true;
        pending.push((value as Record<string, unknown>)[key]);
      }
    }
  }
  return false;
}

/** At most this many of a body's errors are listed: enough to fix a form in one round, bounded whatever the body. */
const MAX_LISTED_ERRORS = 20;

/** Every issue as the spec's error, one per field (a field's first issue), at most MAX_LISTED_ERRORS. */
function issuesToError(issues: readonly z.core.$ZodIssue[], input: unknown): DomainError {
  const byParam = new Map<string | null, DomainError>();
  for (const issue of issues) {
    if (byParam.size === MAX_LISTED_ERRORS) break;
    const error = issueToError(issue, input);
    if (!byParam.has(error.param)) byParam.set(error.param, error);
  }
  const all = [...byParam.values()];
  return all.length === 1 ? all[0] : new InvalidRequestError(all);
}

/**
 * Parses `input` with `schema` or throws the DomainError of the first issue
 * (with every field's issue listed when there are several: InvalidRequestError).
 * A NUL character in any string the schema accepted is `invalid_value` on its field.
 */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw issuesToError(result.error.issues, input);
  // What the schema kept (unknown query parameters are dropped, so they may hold anything).
  const nul = nulCharacterPath(result.data);
  if (nul) {
    const param = formatParam(nul);
    throw new DomainError('invalid_value', `${param ?? 'body'} must not contain NUL characters`, param);
  }
  return result.data;
}

/** A JSON body must be an object; `undefined` (no body) reads as `{}`. */
export function bodyObject(body: unknown): Record<string, unknown> {
  if (body === undefined) return {};
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new DomainError('invalid_value', 'Request body must be a JSON object');
  }
  return body as Record<string, unknown>;
}

const COMPILED = new WeakMap<z.ZodType, z.ZodType>();

/**
 * `schema` with a parser generated from it (zod's `z.compile`, once per schema): a valid input
 * takes straight-line code, anything else falls back to zod's own parse, so the output, the
 * errors and their wording are the schema's. A schema zod cannot compile is used as it is.
 */
export function compiledSchema<S extends z.ZodType>(schema: S): S {
  let compiled = COMPILED.get(schema);
  if (!compiled) COMPILED.set(schema, (compiled = z.compile(schema)));
  return compiled as S;
}
