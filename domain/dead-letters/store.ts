import type { Db, SqlExecutor } from '../../lib/db';
import { executeSql } from '../../lib/db';
import type { RefusedRow } from '../../lib/clickhouse/refused-rows';

/**
 * Dead letters (PostgreSQL `dead_letters`): rows a mover could not store in
 * ClickHouse because ClickHouse refused them (lib/clickhouse/refused-rows.ts).
 * Each is kept with its payload and the refusal, once per (table, key), until
 * an operator deletes it (`adctl dead-letters`); the api's metrics count them.
 */
export interface DeadLetter {
  targetTable: string;
  /** The row's key in its source, so that a retried batch sets it aside once. */
  rowKey: string;
  /** The row as sent (JSON text). */
  payload: string;
  error: string;
}

/** ClickHouse may echo the bytes it refused; PostgreSQL text holds no NUL, and the message needs no more than this. */
const MAX_ERROR_LENGTH = 2_000;
const cleanError = (error: string) =>
  error
    .replace(/\u0000/g, '')
    .slice(0, MAX_ERROR_LENGTH)
    .toWellFormed();

/** The refused rows of one insert into `targetTable` as dead letters, keyed by `keyOf`. */
export function deadLettersOf<T>(targetTable: string, refused: RefusedRow<T>[], keyOf: (row: T) => string): DeadLetter[] {
  return refused.map(({ row, error }) => ({ targetTable, rowKey: keyOf(row), payload: payloadOf(row), error }));
}

/** A row as JSON text (64-bit integers as strings). */
export const payloadOf = (row: unknown): string => JSON.stringify(row, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));

/**
 * The statement that stores dead letters (a repeat of a (table, key) is
 * ignored), for a caller that runs it inside its own transaction; each is logged.
 */
export function deadLetterInsert(letters: DeadLetter[]): { text: string; values: unknown[] } {
  for (const l of letters)
    console.error(
      JSON.stringify({
        level: 'error',
        msg: 'row refused by ClickHouse, set aside as a dead letter',
        table: l.targetTable,
        key: l.rowKey,
        error: cleanError(l.error),
      }),
    );
  return {
    text: `INSERT INTO dead_letters (target_table, row_key, payload, error)
           SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[])
           ON CONFLICT (target_table, row_key) DO NOTHING`,
    values: [letters.map((l) => l.targetTable), letters.map((l) => l.rowKey), letters.map((l) => l.payload), letters.map((l) => cleanError(l.error))],
  };
}

/** Stores dead letters on their own. */
export async function recordDeadLetters(executor: SqlExecutor, letters: DeadLetter[]): Promise<void> {
  if (letters.length === 0) return;
  const { text, values } = deadLetterInsert(letters);
  await executeSql(executor, text, values);
}

export interface StoredDeadLetter {
  id: string;
  target_table: string;
  row_key: string;
  error: string;
  payload: string;
  created_at: string;
}

/** The newest dead letters first, optionally of one table. */
export async function listDeadLetters(db: Db, options: { table?: string; limit?: number } = {}): Promise<StoredDeadLetter[]> {
  const rows = await db.deadLetter.findMany({
    where: options.table ? { targetTable: options.table } : {},
    orderBy: { id: 'desc' },
    take: options.limit ?? 50,
  });
  return rows.map((r) => ({
    id: r.id.toString(),
    target_table: r.targetTable,
    row_key: r.rowKey,
    error: r.error,
    payload: r.payload,
    created_at: r.createdAt.toISOString(),
  }));
}

/** How many dead letters each table has. */
export async function countDeadLetters(db: Db): Promise<Record<string, number>> {
  const groups = await db.deadLetter.groupBy({ by: ['targetTable'], _count: { _all: true } });
  return Object.fromEntries(groups.map((g) => [g.targetTable, g._count._all]));
}

/** Deletes dead letters (an operator has dealt with them): by id, or all of one table's; returns how many. */
export async function deleteDeadLetters(db: Db, which: { ids: bigint[] } | { table: string }): Promise<number> {
  const { count } = await db.deadLetter.deleteMany({ where: 'ids' in which ? { id: { in: which.ids } } : { targetTable: which.table } });
  return count;
}

/** Deletes dead letters older than `days` (they may hold personal data); returns how many. */
export async function pruneDeadLetters(db: Db, days: number, now = Date.now()): Promise<number> {
  const { count } = await db.deadLetter.deleteMany({ where: { createdAt: { lt: new Date(now - days * 86_400_000) } } });
  return count;
}
