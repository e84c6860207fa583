import { z } from 'zod';
import { DomainError } from '../errors';
import { isPlainObject } from '../schema-rules';
import { compiledSchema } from '../../lib/validation';

/*
 * A collected event (spec: "Collected event"): the basic shape check applied at
 * the edge before the event is durably stored. Only `event_name` is required;
 * known fields must have their documented type; unknown fields are dropped
 * (fire-and-forget: they are not an error). The one declaration: collectedEventSchema below.
 */

export const ATTRIBUTION_TYPES = ['click', 'view', 'organic'] as const;
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
const OBJECT_BOUNDS = `At most ${OBJECT_LIMITS.maxDepth} levels deep, ${OBJECT_LIMITS.maxMembers} keys and array elements in all, and ${OBJECT_LIMITS.maxJsonLength} characters as JSON; every string well-formed Unicode.`;

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

/** A string field: a string, at most MAX_STRING_LENGTH long, well-formed Unicode (`required`: not empty either). */
const stringField = (field: string, required = false) => {
  const text = z.string({ error: `${field} must be a string` });
  return (required ? text.min(1, { error: `${field} is required` }) : text)
    .max(MAX_STRING_LENGTH, { error: `${field} is longer than ${MAX_STRING_LENGTH} characters` })
    .refine((v) => v.isWellFormed(), { error: `${field} is not well-formed Unicode (it contains a lone UTF-16 surrogate)` });
};

/** `params` or `consent`: a JSON object within OBJECT_LIMITS (checkBoundedJson names the offending path). */
const objectField = (field: string) =>
  z.record(z.string(), z.unknown(), { error: `${field} must be a JSON object` }).superRefine((value, ctx) => {
    const problem = boundedJsonProblem(value, field);
    if (problem) ctx.addIssue({ code: 'custom', message: problem.message, params: { param: problem.param } });
  });

const TIMESTAMP_ERROR = `timestamp must be Unix seconds (a number from 0 to ${MAX_TIMESTAMP})`;
const optional = <S extends z.ZodType>(schema: S) => schema.nullable().optional();

/**
 * A collected event, declared once: the `/api/collect` operation documents it (its OpenAPI body)
 * and parseEvent validates with it. Only `event_name` is required; null reads as absent; unknown
 * fields and `channel` (the server's to set) are dropped; `timestamp` is floored to whole seconds.
 */
export const collectedEventSchema = z
  .object(
    {
      event_name: stringField('event_name', true).describe('A standard or custom event name'),
      tag_id: optional(stringField('tag_id')).describe('Advertiser tag id; derived from the host of page_url when omitted'),
      event_id: optional(stringField('event_id')).describe("Deduplication key: an organization's events with one event_id are stored once"),
      page_url: optional(stringField('page_url')),
      referrer: optional(stringField('referrer')),
      user_agent: optional(stringField('user_agent')).describe('Parsed into ua_browser, ua_os, ua_device'),
      session_id: optional(stringField('session_id')),
      client_id: optional(stringField('client_id')),
      click_id: optional(stringField('click_id')),
      impression_id: optional(stringField('impression_id')),
      bid_id: optional(stringField('bid_id')),
      attribution_type: optional(z.enum(ATTRIBUTION_TYPES, { error: `attribution_type must be one of ${ATTRIBUTION_TYPES.join(', ')}` })),
      channel: optional(stringField('channel')).describe('Ignored: always stored as server'),
      timestamp: optional(z.number({ error: TIMESTAMP_ERROR }).min(0, { error: TIMESTAMP_ERROR }).max(MAX_TIMESTAMP, { error: TIMESTAMP_ERROR })).describe(
        'Unix seconds; defaults to the receive time',
      ),
      consent: optional(objectField('consent')).describe(
        `Consent flags: ad_storage (granted | denied) and gdpr (true when consent is required); without consent to keep them the IP address is stored truncated and the raw user agent dropped. ${OBJECT_BOUNDS}`,
      ),
      params: optional(objectField('params')).describe(`Free-form properties, stored as JSON. ${OBJECT_BOUNDS}`),
    },
    { error: 'An event must be a JSON object' },
  )
  .transform(({ channel: _serverSets, ...fields }) => {
    const event: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(fields)) if (value !== null && value !== undefined) event[field] = value;
    if (typeof event.timestamp === 'number') event.timestamp = Math.floor(event.timestamp);
    return event as unknown as CollectedEvent;
  });

/** The event in its stored form, or a DomainError (`invalid_value` / `required`) naming the field under `prefix`. */
export function parseEvent(value: unknown, prefix = ''): CollectedEvent {
  const parsed = compiledSchema(collectedEventSchema).safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue.path[0] as string | undefined;
  const inner = (issue as { params?: { param?: string } }).params?.param ?? field;
  const param = inner ? `${prefix}${inner}` : prefix ? prefix.replace(/\.$/, '') : null;
  const given = field === undefined || !isPlainObject(value) ? undefined : value[field];
  const required = field === 'event_name' && (given === undefined || given === null || given === '');
  throw new DomainError(required ? 'required' : 'invalid_value', required ? 'event_name is required' : issue.message, param);
}

/** What is wrong with a `params` or `consent` object, and where (the field, or a path inside it). */
interface JsonProblem {
  message: string;
  param: string;
}

/**
 * A string with a lone UTF-16 surrogate has no UTF-8 form: ClickHouse refuses
 * it, so it is refused here, before anything is stored.
 */
const notWellFormed = (param: string): JsonProblem => ({ param, message: `${param} is not well-formed Unicode (it contains a lone UTF-16 surrogate)` });

/**
 * Checks a `params` or `consent` object against OBJECT_LIMITS and for
 * well-formed strings (keys and values), iteratively: a hostile depth never
 * reaches the call stack. `param` names the field; an ill-formed string is
 * named by its path inside it.
 */
function boundedJsonProblem(root: Record<string, unknown>, param: string): JsonProblem | null {
  const { maxDepth, maxMembers, maxJsonLength } = OBJECT_LIMITS;
  const stack: { value: unknown; depth: number; path: string }[] = [{ value: root, depth: 1, path: param }];
  let members = 0;
  while (stack.length > 0) {
    const { value, depth, path } = stack.pop()!;
    if (typeof value === 'string') {
      if (!value.isWellFormed()) return notWellFormed(path);
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth > maxDepth) return { param, message: `${param} is nested deeper than ${maxDepth} levels` };
    const entries: [string, unknown][] = Array.isArray(value) ? value.map((v, i) => [`[${i}]`, v]) : Object.entries(value);
    members += entries.length;
    if (members > maxMembers) return { param, message: `${param} has more than ${maxMembers} keys and array elements in all` };
    for (const [key, child] of entries) {
      const isIndex = Array.isArray(value);
      if (!isIndex && !key.isWellFormed()) return notWellFormed(path); // the key itself cannot name the param
      stack.push({ value: child, depth: depth + 1, path: isIndex ? `${path}${key}` : `${path}.${key}` });
    }
  }
  if (JSON.stringify(root).length > maxJsonLength) return { param, message: `${param} is longer than ${maxJsonLength} characters as JSON` };
  return null;
}
