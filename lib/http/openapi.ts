import { z } from 'zod';

/**
 * The OpenAPI 3.1 document is generated from the same zod schemas the handlers
 * validate with: each route module calls `documentRoute` next to its handler,
 * and `buildOpenApiDocument` turns the collection into JSON Schema (2020-12,
 * OpenAPI 3.1's dialect) with zod's own converter.
 */
export type Auth = 'apiKey' | 'session' | 'none';

export interface RouteDoc {
  method: 'get' | 'post' | 'delete';
  /** Express-style path (`/v1/campaigns/:campaign_id`). */
  path: string;
  summary: string;
  tag: string;
  auth: Auth;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** Request media type, `application/json` unless stated. */
  bodyMediaTypes?: Record<string, z.ZodType>;
  headers?: Record<string, string>;
  responses: Record<number, { description: string; schema?: z.ZodType }>;
}

const routes: RouteDoc[] = [];

export function documentRoute(route: RouteDoc): void {
  routes.push(route);
}

export const errorBodySchema = z.object({
  error: z.object({
    message: z.string(),
    type: z.enum(['invalid_request_error', 'authentication_error', 'rate_limit_error', 'server_error']),
    param: z.string().nullable(),
    code: z.string(),
  }),
});

const jsonSchema = (schema: z.ZodType, io: 'input' | 'output') =>
  z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' });

function toOpenApiPath(path: string): string {
  return path.replace(/:([A-Za-z_]+)/g, '{$1}');
}

function operation(route: RouteDoc) {
  const pathParams = [...route.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => ({
    name: m[1], in: 'path', required: true, schema: { type: 'string' },
  }));
  const queryParams = route.query
    ? Object.entries(route.query.shape).map(([name, schema]) => ({
        name,
        in: 'query',
        required: !(schema as z.ZodType).safeParse(undefined).success,
        schema: jsonSchema(schema as z.ZodType, 'input'),
      }))
    : [];
  const headerParams = Object.entries(route.headers ?? {}).map(([name, description]) => ({
    name, in: 'header', required: false, description, schema: { type: 'string' },
  }));
  const mediaTypes = route.bodyMediaTypes ?? (route.body ? { 'application/json': route.body } : undefined);
  const errorContent = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };
  const responses: Record<string, object> = {};
  for (const [status, response] of Object.entries(route.responses)) {
    // The error object is documented once, in components, and referenced; every
    // `/v1` error answers with it, so an error response documented without a
    // schema gets it too (a bare description left clients without the body's shape).
    const isError = response.schema === errorBodySchema || (!response.schema && route.auth === 'apiKey' && Number(status) >= 400);
    let content: object | undefined;
    if (isError) content = errorContent;
    else if (response.schema) content = { 'application/json': { schema: jsonSchema(response.schema, 'output') } };
    responses[status] = { description: response.description, ...(content ? { content } : {}) };
  }
  if (route.auth === 'apiKey') {
    responses['401'] ??= { description: 'auth_required or invalid_api_key', content: errorContent };
    responses['429'] ??= { description: 'rate_limit_exceeded', content: errorContent };
  }
  return {
    summary: route.summary,
    tags: [route.tag],
    security: route.auth === 'apiKey' ? [{ apiKey: [] }] : route.auth === 'session' ? [{ dashboardSession: [] }] : [],
    parameters: [...pathParams, ...queryParams, ...headerParams],
    ...(mediaTypes
      ? { requestBody: { required: true, content: Object.fromEntries(Object.entries(mediaTypes).map(([type, schema]) => [type, { schema: jsonSchema(schema, 'input') }])) } }
      : {}),
    responses,
  };
}

export function buildOpenApiDocument() {
  const paths: Record<string, Record<string, object>> = {};
  for (const route of routes) {
    const path = toOpenApiPath(route.path);
    paths[path] ??= {};
    paths[path][route.method] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Chat ads platform API', version: '1.0.0' },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: '`ak_` API key' },
        dashboardSession: { type: 'http', scheme: 'bearer', description: 'Dashboard session token' },
      },
      schemas: { Error: jsonSchema(errorBodySchema, 'output') },
    },
    paths,
  };
}
