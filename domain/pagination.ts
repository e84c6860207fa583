import { DomainError, notFound } from './errors';
import { isUuid } from './ids';

/** Which page of a list: at most `limit` rows, in `order`, after or before a cursor row (exclusive). */
export interface PageRequest {
  limit: number;
  order: 'asc' | 'desc';
  before?: string;
  after?: string;
}

/** One page of rows in list order; `hasMore` tells whether the scan went on past it. */
export interface Page<Row> {
  rows: Row[];
  hasMore: boolean;
}

/** A row that can be paged: ordered by (createdAt, id), the id doubling as the cursor. */
interface Pageable {
  id: string;
  createdAt: Date;
}

/**
 * Keyset pagination over (created_at, id) for any Prisma model.
 * `findMany` receives the extra where-clause and ordering; `findCursor` loads
 * the cursor row within the same scope (a malformed cursor is `invalid_value`, an unknown one `not_found`).
 * `after` walks in the list's order, `before` walks backwards from the cursor;
 * both are exclusive.
 */
export async function paginate<Row extends Pageable>(
  page: PageRequest,
  findCursor: (id: string) => Promise<Pageable | null>,
  findMany: (args: { where: object; orderBy: object[]; take: number }) => Promise<Row[]>,
): Promise<Page<Row>> {
  const cursorId = page.after ?? page.before;
  const backwards = page.before !== undefined;
  // The direction we actually scan in: `before` scans against the list order.
  const scanDesc = (page.order === 'desc') !== backwards;
  let where: object = {};
  if (cursorId) {
    const param = backwards ? 'before' : 'after';
    // A malformed cursor is a bad value; a well-formed one that names no row of this list is unknown (404).
    if (!isUuid(cursorId)) throw new DomainError('invalid_value', 'A pagination cursor is the id of a row of this list', param);
    const cursor = await findCursor(cursorId);
    if (!cursor) throw notFound('pagination cursor', param);
    const cmp = scanDesc ? 'lt' : 'gt';
    where = {
      OR: [{ createdAt: { [cmp]: cursor.createdAt } }, { createdAt: cursor.createdAt, id: { [cmp]: cursor.id } }],
    };
  }
  const dir = scanDesc ? 'desc' : 'asc';
  const rows = await findMany({ where, orderBy: [{ createdAt: dir }, { id: dir }], take: page.limit + 1 });
  const hasMore = rows.length > page.limit;
  const pageRows = rows.slice(0, page.limit);
  if (backwards) pageRows.reverse();
  return { rows: pageRows, hasMore };
}
