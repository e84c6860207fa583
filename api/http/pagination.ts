import { z } from 'zod';
import { DomainError } from '../../lib/errors';
import type { Page, PageRequest } from '../../domain/pagination';

/** The spec's list shape, used by every `/v1` list. */
export interface ListPage<T> {
  object: 'list';
  data: T[];
  count: number;
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}

export const listPageSchema = <T extends z.ZodType>(item: T) =>
  z.object({
    object: z.literal('list'),
    data: z.array(item),
    count: z.number().int(),
    first_id: z.string().nullable(),
    last_id: z.string().nullable(),
    has_more: z.boolean(),
  });

export const paginationQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(20),
  order: z.enum(['asc', 'desc']).default('desc'),
  before: z.guid().optional().describe('Id of a row of this list (its first_id); not with after'),
  after: z.guid().optional().describe('Id of a row of this list (its last_id); not with before'),
});
/** Query parameters that may not be sent together (the OpenAPI document says so too). */
export const EXCLUSIVE_CURSORS: [string, string][] = [['before', 'after']];

/** A list's query: the pagination parameters and the list's own filters. */
export const listQuerySchema = <S extends z.ZodRawShape>(filters: z.ZodObject<S>) => paginationQuerySchema.extend(filters.shape);

/** The page asked for by a parsed list query; `before` and `after` are mutually exclusive (spec). */
export function pageRequest(query: z.output<typeof paginationQuerySchema>): PageRequest {
  if (query.before !== undefined && query.after !== undefined) {
    throw new DomainError('invalid_value', 'before and after are mutually exclusive', 'before');
  }
  return { limit: query.limit, order: query.order, before: query.before, after: query.after };
}

/** A page of rows in the spec's list shape. */
export function presentList<Row, Out extends { id: string }>(page: Page<Row>, present: (row: Row) => Out): ListPage<Out> {
  const data = page.rows.map(present);
  return {
    object: 'list',
    data,
    count: data.length,
    first_id: data[0]?.id ?? null,
    last_id: data[data.length - 1]?.id ?? null,
    has_more: page.hasMore,
  };
}
