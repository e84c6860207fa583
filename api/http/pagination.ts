import { z } from 'zod';
import { ApiError } from './errors';
import { parseOrThrow } from './validation';

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
export type PaginationQuery = z.output<typeof paginationQuerySchema>;

export function parsePagination(query: Record<string, unknown>): PaginationQuery {
  const page = parseOrThrow(paginationQuerySchema, {
    limit: query.limit, order: query.order, before: query.before, after: query.after,
  });
  if (page.before && page.after) {
    throw new ApiError(400, 'invalid_value', 'before and after are mutually exclusive', 'before');
  }
  return page;
}

/** A row that can be paged: ordered by (createdAt, id), the id doubling as the cursor. */
interface Pageable { id: string; createdAt: Date }

/**
 * Keyset pagination over (created_at, id) for any Prisma model.
 * `findMany` receives the extra where-clause and ordering; `findCursor` loads
 * the cursor row within the same scope (an unknown cursor is `invalid_value`).
 * `after` walks in the list's order, `before` walks backwards from the cursor;
 * both are exclusive.
 */
export async function paginate<Row extends Pageable, Out extends { id: string }>(
  page: PaginationQuery,
  findCursor: (id: string) => Promise<Pageable | null>,
  findMany: (args: { where: object; orderBy: object[]; take: number }) => Promise<Row[]>,
  present: (row: Row) => Out,
): Promise<ListPage<Out>> {
  const cursorId = page.after ?? page.before;
  const backwards = page.before !== undefined;
  // The direction we actually scan in: `before` scans against the list order.
  const scanDesc = (page.order === 'desc') !== backwards;
  let where: object = {};
  if (cursorId) {
    const cursor = isUuid(cursorId) ? await findCursor(cursorId) : null;
    if (!cursor) throw new ApiError(400, 'invalid_value', 'Unknown pagination cursor', backwards ? 'before' : 'after');
    const cmp = scanDesc ? 'lt' : 'gt';
    where = {
      OR: [
        { createdAt: { [cmp]: cursor.createdAt } },
        { createdAt: cursor.createdAt, id: { [cmp]: cursor.id } },
      ],
    };
  }
  const dir = scanDesc ? 'desc' : 'asc';
  const rows = await findMany({ where, orderBy: [{ createdAt: dir }, { id: dir }], take: page.limit + 1 });
  const has_more = rows.length > page.limit;
  const pageRows = rows.slice(0, page.limit);
  if (backwards) pageRows.reverse();
  const data = pageRows.map(present);
  return {
    object: 'list',
    data,
    count: data.length,
    first_id: data[0]?.id ?? null,
    last_id: data[data.length - 1]?.id ?? null,
    has_more,
  };
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string) => UUID_RE.test(value);
