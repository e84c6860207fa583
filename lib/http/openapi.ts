import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from './error-codes';
import type { Auth, Operation } from './operations';

/**
 * The OpenAPI 3.1 document, derived from the same operation declarations the
 * routes are mounted from (lib/http/operations.ts) and from the same zod schemas
 * the handlers validate with (zod's own JSON Schema converter, 2020-12). Error
 * responses list their codes from the one status table (lib/http/error-codes.ts).
 */
const errorObjectSchema = z.object({
  message: z.string(),
  type: z.enum(['invalid_request_error', 'authentication_error', 'rate_limit_error', 'server_error']),
  param: z.string().nullable(),
  code: z.string(),
});
export const errorBodySchema = z.object({
  error: errorObjectSchema,
  errors: z
    .array(errorObjectSchema)
    .min(2)
    .max(20)
    .optional()
    .describe("Extension: when a body breaks several rules, every field's error (one per field, the first is `error`), so all can be fixed in one round"),
});

/** Errors of the platform surface: the same codes inside the envelope. */
export const errorEnvelopeSchema = z.object({
  success: z.literal(false),
  data: z.null(),
  error: z.object({ code: z.string(), message: z.string(), param: z.string().nullable() }),
  meta: z.object({ request_id: z.string() }),
});

const SECURITY_SCHEMES = {
  apiKey: { type: 'http', scheme: 'bearer', description: '`ak_` API key' },
  dashboardSession: { type: 'http', scheme: 'bearer', description: 'Dashboard session token' },
  dashboardCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: 'dashboard_session',
    description: "The dashboard's session cookie (sign-in by `adctl login-link`); state changes also carry the session's CSRF token in `X-CSRF-Token`",
  },
  publisherKey: { type: 'http', scheme: 'bearer', description: 'Publisher key (`adctl publisher create`)' },
} as const;
const SCHEME_OF: Record<Auth, keyof typeof SECURITY_SCHEMES | null> = {
  apiKey: 'apiKey',
  session: 'dashboardSession',
  dashboard: 'dashboardCookie',
  publisherKey: 'publisherKey',
  none: null,
};
/** What every operation of a surface may answer besides its own errors. */
const SURFACE_ERRORS: Record<Auth, ErrorCode[]> = {
  apiKey: ['auth_required', 'invalid_api_key', 'rate_limit_exceeded'],
  session: ['auth_required', 'invalid_session', 'insufficient_role', 'not_found'],
  dashboard: ['auth_required', 'insufficient_role', 'csrf_failed'],
  publisherKey: ['auth_required', 'invalid_api_key'],
  none: [],
};
const JSON_BODY_ERRORS: ErrorCode[] = ['invalid_json', 'body_too_large', 'unsupported_media_type'];

const jsonSchema = (schema: z.ZodType, io: 'input' | 'output') => z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' });

const toOpenApiPath = (path: string) => path.replace(/:([A-Za-z_]+)/g, '{$1}');

function errorResponses(op: Operation, errorRef: string): Record<string, object> {
  const codes = new Set<ErrorCode>([...SURFACE_ERRORS[op.auth], ...(op.body ? JSON_BODY_ERRORS : []), ...(op.errors ?? [])]);
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(ERROR_CODES[code].status, [...(byStatus.get(ERROR_CODES[code].status) ?? []), code]);
  const responses: Record<string, object> = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    const description = list.map((code) => `\`${code}\`: ${ERROR_CODES[code].when}`).join('; ');
    responses[status] = {
      description,
      content: { 'application/json': { schema: { $ref: errorRef } } },
      ...(status === 429 ? { headers: { 'Retry-After': { schema: { type: 'integer' }, description: 'Seconds until a retry can succeed' } } } : {}),
    };
  }
  return responses;
}

/**
 * Query parameters with mutually exclusive members: OpenAPI cannot relate two
 * parameters, so they are documented as one exploded form object (which
 * serializes to the same `?limit=..&after=..`) whose schema forbids the pairs.
 */
function exclusiveQueryParameter(query: z.ZodObject, exclusive: [string, string][]) {
  const schema = jsonSchema(query, 'input') as Record<string, unknown>;
  delete schema.$schema;
  return {
    name: 'query',
    in: 'query',
    style: 'form',
    explode: true,
    required: Array.isArray(schema.required) && schema.required.length > 0,
    schema: { ...schema, additionalProperties: true, allOf: exclusive.map((pair) => ({ not: { required: pair } })) },
    description: `Not together: ${exclusive.map((pair) => pair.join(' and ')).join('; ')}`,
  };
}

/**
 * A query parameter's value: its schema, or for a parameter whose values are JSON documents (a
 * string array whose items carry contentMediaType application/json) the document's own schema as
 * `content`, so that clients and generated requests see the JSON shape the handler checks.
 */
function queryValueSchema(schema: z.ZodType): { schema: object } | { content: object } {
  const json = jsonSchema(schema, 'input') as { type?: string; items?: { contentMediaType?: string; contentSchema?: object } };
  const items = json.type === 'array' ? json.items : undefined;
  if (items?.contentMediaType === 'application/json' && items.contentSchema) return { content: { 'application/json': { schema: items.contentSchema } } };
  return { schema: json };
}

function operationEntry(op: Operation) {
  const pathParams = [...op.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    schema: op.params?.[m[1]] ? jsonSchema(op.params[m[1]], 'input') : { type: 'string' },
  }));
  const queryParams =
    op.query && op.exclusiveQuery
      ? [exclusiveQueryParameter(op.query, op.exclusiveQuery)]
      : op.query
        ? Object.entries(op.query.shape).map(([name, schema]) => ({
            name,
            in: 'query',
            required: !(schema as z.ZodType).safeParse(undefined).success,
            ...queryValueSchema(schema as z.ZodType),
            ...((schema as z.ZodType).description ? { description: (schema as z.ZodType).description } : {}),
          }))
        : [];
  const headerParams = Object.entries(op.headers ?? {}).map(([name, header]) => ({
    name,
    in: 'header',
    required: false,
    description: header.description,
    schema: header.schema ? jsonSchema(header.schema, 'input') : { type: 'string' },
  }));
  const mediaTypes = op.rawBody ?? (op.body ? { 'application/json': op.body } : undefined);
  const scheme = SCHEME_OF[op.auth];
  const errorRef = op.auth === 'session' ? '#/components/schemas/ErrorEnvelope' : '#/components/schemas/Error';
  const success = {
    description: op.success.description,
    ...(op.success.schema ? { content: { 'application/json': { schema: jsonSchema(op.success.schema, 'output') } } } : {}),
    ...(op.success.links ? { links: op.success.links } : {}),
  };
  return {
    operationId: op.id,
    summary: op.summary,
    tags: [op.tag],
    security: scheme ? [{ [scheme]: [] }] : [],
    parameters: [...pathParams, ...queryParams, ...headerParams],
    ...(mediaTypes
      ? // A JSON body its schema accepts empty may be left out altogether (read as `{}`).
        {
          requestBody: {
            required: Boolean(op.rawBody) || !op.body!.safeParse({}).success,
            content: Object.fromEntries(Object.entries(mediaTypes).map(([type, schema]) => [type, { schema: jsonSchema(schema, 'input') }])),
          },
        }
      : {}),
    responses: {
      [op.success.status]: success,
      ...Object.fromEntries(
        Object.entries(op.moreResponses ?? {}).map(([status, r]) => [
          status,
          {
            description: r.description,
            ...(r.schema ? { content: { 'application/json': { schema: jsonSchema(r.schema, 'output') } } } : {}),
          },
        ]),
      ),
      ...errorResponses(op, errorRef),
      // Node's HTTP parser refuses a request line and headers over 16 KB before any route runs.
      ...(queryParams.length > 0 ? { 431: { description: 'Request header fields too large: the URL and headers exceed 16 KB (no body)' } } : {}),
    },
  };
}

export function buildOpenApiDocument(operations: Operation[], info: { title: string; version: string }) {
  const paths: Record<string, Record<string, object>> = {};
  for (const op of operations) {
    const path = toOpenApiPath(op.path);
    paths[path] ??= {};
    paths[path][op.method] = operationEntry(op);
  }
  const usedSchemes = new Set(operations.map((op) => SCHEME_OF[op.auth]).filter((s) => s !== null));
  return {
    openapi: '3.1.0',
    info,
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    components: {
      securitySchemes: Object.fromEntries(Object.entries(SECURITY_SCHEMES).filter(([name]) => usedSchemes.has(name as keyof typeof SECURITY_SCHEMES))),
      schemas: { Error: jsonSchema(errorBodySchema, 'output'), ErrorEnvelope: jsonSchema(errorEnvelopeSchema, 'output') },
    },
    paths,
  };
}
