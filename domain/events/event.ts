import { DomainError } from '../errors';

/**
 * A collected event (spec: "Collected event"): the basic shape check applied at
 * the edge before the event is durably stored. Only `event_name` is required;
 * known fields must have their documented type; unknown fields are dropped
 * (fire-and-forget: they are not an error).
 */
export const STRING_FIELDS = [
  'event_name',
  'tag_id',
  'event_id',
  'page_url',
  'referrer',
  'user_agent',
  'session_id',
  'client_id',
  'click_id',
  'impression_id',
  'bid_id',
  'attribution_type',
  'channel',
] as const;
export const OBJECT_FIELDS = ['consent', 'params'] as const;
export const ATTRIBUTION_TYPES = ['click', 'view', 'organic'];
export const MAX_BATCH_EVENTS = 1000;
/** Strings longer than this are refused (ids and URLs; params carry the free-form data). */
export const MAX_STRING_LENGTH = 8192;
/** ClickHouse DateTime holds Unix seconds up to 2^32 - 1. */
export const MAX_TIMESTAMP = 4294967295;
/**
 * Bounds of each of `params` and `consent` (docs/api-behaviour.md, "Event collection"): nesting
 * depth (the object itself is level 1), members counted over the whole tree
 * (object keys plus array elements), and its length as JSON. Checked before the
 * event joins a shared inbox flush, so no one request can fail another's.
 */
export const OBJECT_LIMITS = { maxDepth: 10, maxMembers: 1000, maxJsonLength: 32_768 } as const;

export interface CollectedEvent {
  event_name: string;
  tag_id?: string;
  event_id?: string;
  timestamp?: number;
  page_url?: string;
  referrer?: string;
  user_agent?: string;
  session_id?: string;
  client_id?: string;
  click_id?: string;
  impression_id?: string;
  bid_id?: string;
  attribution_type?: string;
  consent?: Record<string, unknown>;
  params?: Record<string, unknown>;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The event in its stored form, or a DomainError (`invalid_value` / `required`) naming the field under `prefix`. */
export function parseEvent(value: unknown, prefix = ''): CollectedEvent {
  const param = (field: string) => `${prefix}${field}`;
  if (!isPlainObject(value)) throw new DomainError('invalid_value', 'An event must be a JSON object', prefix ? prefix.replace(/\.$/, '') : null);
  const name = value.event_name;
  if (name === undefined || name === null || name === '') throw new DomainError('required', 'event_name is required', param('event_name'));
  const event: Record<string, unknown> = {};
  for (const field of STRING_FIELDS) {
    const v = value[field];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string') throw new DomainError('invalid_value', `${field} must be a string`, param(field));
    if (!v.isWellFormed()) throw notWellFormed(param(field));
    if (v.length > MAX_STRING_LENGTH) throw new DomainError('invalid_value', `${field} is longer than ${MAX_STRING_LENGTH} characters`, param(field));
    // `channel` is the server's to set (always `server`): a sent value is dropped.
    if (field !== 'channel') event[field] = v;
  }
  if (typeof event.attribution_type === 'string' && !ATTRIBUTION_TYPES.includes(event.attribution_type)) {
    throw new DomainError('invalid_value', `attribution_type must be one of ${ATTRIBUTION_TYPES.join(', ')}`, param('attribution_type'));
  }
  if (value.timestamp !== undefined && value.timestamp !== null) {
    const t = value.timestamp;
    if (typeof t !== 'number' || !Number.isFinite(t) || t < 0 || t > MAX_TIMESTAMP) {
      throw new DomainError('invalid_value', 'timestamp must be Unix seconds (a number from 0 to 4294967295)', param('timestamp'));
    }
    event.timestamp = Math.floor(t);
  }
  for (const field of OBJECT_FIELDS) {
    const v = value[field];
    if (v === undefined || v === null) continue;
    if (!isPlainObject(v)) throw new DomainError('invalid_value', `${field} must be a JSON object`, param(field));
    checkBoundedJson(v, param(field));
    event[field] = v;
  }
  return event as unknown as CollectedEvent;
}

/**
 * A string with a lone UTF-16 surrogate has no UTF-8 form: ClickHouse refuses
 * it, so it is refused here, before anything is stored.
 */
const notWellFormed = (param: string) => new DomainError('invalid_value', `${param} is not well-formed Unicode (it contains a lone UTF-16 surrogate)`, param);

/**
 * Checks a `params` or `consent` object against OBJECT_LIMITS and for
 * well-formed strings (keys and values), iteratively: a hostile depth never
 * reaches the call stack. `param` names the field; an ill-formed string is
 * named by its path inside it.
 */
function checkBoundedJson(root: Record<string, unknown>, param: string): void {
  const { maxDepth, maxMembers, maxJsonLength } = OBJECT_LIMITS;
  const stack: { value: unknown; depth: number; path: string }[] = [{ value: root, depth: 1, path: param }];
  let members = 0;
  while (stack.length > 0) {
    const { value, depth, path } = stack.pop()!;
    if (typeof value === 'string') {
      if (!value.isWellFormed()) throw notWellFormed(path);
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth > maxDepth) throw new DomainError('invalid_value', `${param} is nested deeper than ${maxDepth} levels`, param);
    const entries: [string, unknown][] = Array.isArray(value) ? value.map((v, i) => [`[${i}]`, v]) : Object.entries(value);
    members += entries.length;
    if (members > maxMembers) throw new DomainError('invalid_value', `${param} has more than ${maxMembers} keys and array elements in all`, param);
    for (const [key, child] of entries) {
      const isIndex = Array.isArray(value);
      if (!isIndex && !key.isWellFormed()) throw notWellFormed(path); // the key itself cannot name the param
      stack.push({ value: child, depth: depth + 1, path: isIndex ? `${path}${key}` : `${path}.${key}` });
    }
  }
  if (JSON.stringify(root).length > maxJsonLength) {
    throw new DomainError('invalid_value', `${param} is longer than ${maxJsonLength} characters as JSON`, param);
  }
}
