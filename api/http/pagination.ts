import { z } from 'zod';
import { DomainError } from '../../lib/errors';
import type { Page, PageRequest } from '../../domain/pagination';
import { parseOrThrow } from '../../domain/validation';

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
  before: z.string().min(1).optional(),
  after: z.string().min(1).optional(),
});

export function parsePagination(query: Record<string, unknown>): PageRequest {
  const page = parseOrThrow(paginationQuerySchema, {
    limit: query.limit, order: query.order, before: query.before, after: query.after,
  });
  if (page.before && page.after) {
    throw new DomainError('invalid_value', 'before and after are mutually exclusive', 'before');
  }
  return page;
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
