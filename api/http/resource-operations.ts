import type { z } from 'zod';
import type { Page, PageRequest } from '../../domain/pagination';
import type { ErrorCode } from '../../lib/http/error-codes';
import { defineOperation, type Link, type Operation } from '../../lib/http/operations';
import { organizationOf } from '../auth/api-key-auth';
import { EXCLUSIVE_CURSORS, listQuerySchema, pageRequest, type paginationQuerySchema, presentList } from './pagination';

/** What the list and retrieve of campaigns, ad groups and ads declare alike. */
interface ResourceOperation<Row, Out> {
  id: string;
  /** Express-style path; a retrieve's ends in its id parameter (`/v1/ads/:ad_id`). */
  path: string;
  tag: string;
  summary: string;
  /** The success response's description and schema. */
  description: string;
  schema: z.ZodType;
  present: (row: Row) => Out;
}

/** `GET` of a `/v1` list under an API key: pagination, the list's own filters, the spec's list shape. */
export function listOperation<S extends z.ZodRawShape, Row, Out extends { id: string }>(
  list: ResourceOperation<Row, Out> & {
    filters: z.ZodObject<S>;
    errors: ErrorCode[];
    load: (organizationId: string, filters: z.output<z.ZodObject<S>>, page: PageRequest) => Promise<Page<Row>>;
  },
): Operation {
  return defineOperation({
    id: list.id,
    method: 'get',
    path: list.path,
    tag: list.tag,
    auth: 'apiKey',
    summary: list.summary,
    query: listQuerySchema(list.filters),
    exclusiveQuery: EXCLUSIVE_CURSORS,
    success: { status: 200, description: list.description, schema: list.schema },
    errors: list.errors,
    handle: async ({ query }, _req, res) => {
      // The extended schema's output is both; zod's generic types cannot say so.
      const parsed = query as z.output<typeof paginationQuerySchema> & z.output<z.ZodObject<S>>;
      return presentList(await list.load(organizationOf(res), parsed, pageRequest(parsed)), list.present);
    },
  });
}

/** `GET` of one `/v1` resource by the id at the end of its path, under an API key. */
export function retrieveOperation<Row, Out>(resource: ResourceOperation<Row, Out> & { find: (organizationId: string, id: string) => Promise<Row> }): Operation {
  const idParam = /:([A-Za-z_]+)$/.exec(resource.path)![1];
  return defineOperation({
    id: resource.id,
    method: 'get',
    path: resource.path,
    tag: resource.tag,
    auth: 'apiKey',
    summary: resource.summary,
    success: { status: 200, description: resource.description, schema: resource.schema },
    errors: ['not_found'],
    handle: async ({ params }, _req, res) => resource.present(await resource.find(organizationOf(res), params[idParam])),
  });
}

type Write<B extends z.ZodType, Row, Out> = ResourceOperation<Row, Out> & { body: B; errors: ErrorCode[] };

/** `POST` of a JSON body under an API key, answering `status` with the presented row `write` makes. */
function postOperation<B extends z.ZodType, Row, Out>(
  op: Write<B, Row, Out> & { status: number; links?: Record<string, Link> },
  write: (organizationId: string, params: Record<string, string>, body: z.output<B>) => Promise<Row>,
): Operation {
  return defineOperation({
    id: op.id,
    method: 'post',
    path: op.path,
    tag: op.tag,
    auth: 'apiKey',
    summary: op.summary,
    body: op.body,
    success: { status: op.status, description: op.description, schema: op.schema, ...(op.links ? { links: op.links } : {}) },
    errors: op.errors,
    handle: async ({ params, body }, _req, res) => op.present(await write(organizationOf(res), params, body as z.output<B>)),
  });
}

/** A `/v1` create: 201 with the new resource and its links. */
export function createOperation<B extends z.ZodType, Row, Out>(
  create: Write<B, Row, Out> & { links: Record<string, Link>; create: (organizationId: string, body: z.output<B>) => Promise<Row> },
): Operation {
  return postOperation({ ...create, status: 201 }, (organizationId, _params, body) => create.create(organizationId, body));
}

/** A `/v1` update of the resource whose id ends its path: 200 with it changed. */
export function updateOperation<B extends z.ZodType, Row, Out>(
  update: Write<B, Row, Out> & { update: (organizationId: string, id: string, body: z.output<B>) => Promise<Row> },
): Operation {
  const idParam = /:([A-Za-z_]+)$/.exec(update.path)![1];
  return postOperation({ ...update, status: 200 }, (organizationId, params, body) => update.update(organizationId, params[idParam], body));
}
