import type { ClickHouseClient } from '@clickhouse/client';
import { DomainError } from '../errors';

/** ClickHouse's TIMEOUT_EXCEEDED (max_execution_time reached). */
const TIMEOUT_EXCEEDED = '159';

export const analyticsTimeout = () => new DomainError('analytics_timeout', 'The analytics query timed out; narrow the scope, window or granularity and retry');

/** ClickHouse settings that stop a query itself past `seconds` (18.16 takes whole seconds only). */
export const analyticsBudget = (seconds: number) => ({ max_execution_time: Math.max(1, Math.ceil(seconds)), timeout_overflow_mode: 'throw' as const });

/**
 * Whether a query failed on its budget. The code is parsed from the error response; a timeout that
 * strikes once the answer is streaming arrives only as the text "Code: 159, ..." in the body.
 */
export function isBudgetExceeded(err: unknown): boolean {
  const { code, message } = (err ?? {}) as { code?: string; message?: string };
  return code === TIMEOUT_EXCEEDED || new RegExp(`\\bCode: ${TIMEOUT_EXCEEDED}\\b`).test(message ?? '');
}

const TSV_ESCAPES: Record<string, string> = { b: '\b', f: '\f', r: '\r', n: '\n', t: '\t', '0': '\0', "'": "'", '\\': '\\' };
/** A TabSeparated field as its value (ClickHouse escapes backslash, quote and control characters). */
const unescapeField = (field: string) => (field.includes('\\') ? field.replace(/\\(.)/g, (_, c: string) => TSV_ESCAPES[c] ?? c) : field);

/** TabSeparated text as rows keyed by `columns` (the SELECT's order): cheaper to move and parse than JSON. */
export function parseTabSeparated<C extends string>(text: string, columns: readonly C[]): Record<C, string>[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((line) => {
    const fields = line.split('\t');
    if (fields.length !== columns.length) throw new Error(`expected ${columns.length} columns, got ${fields.length}`);
    return Object.fromEntries(columns.map((c, i) => [c, unescapeField(fields[i])])) as Record<C, string>;
  });
}

/**
 * Runs a report query within a budget of whole seconds (ClickHouse 18.16 takes
 * only integers). The server enforces it itself through `max_execution_time`,
 * so a runaway query stops there too; a client timer one second later covers
 * a server that does not answer at all. Either way: `analytics_timeout`.
 */
export async function runAnalyticsQuery<C extends string>(
  ch: ClickHouseClient,
  query: string,
  budgetSeconds: number,
  columns: readonly C[],
): Promise<Record<C, string>[]> {
  const seconds = Math.max(1, Math.ceil(budgetSeconds));
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), seconds * 1000 + 1000);
  try {
    const result = await ch.query({
      query,
      format: 'TabSeparated',
      abort_signal: abort.signal,
      clickhouse_settings: analyticsBudget(seconds),
    });
    return parseTabSeparated(await result.text(), columns);
  } catch (err) {
    if (abort.signal.aborted || isBudgetExceeded(err)) throw analyticsTimeout();
    throw err;
  } finally {
    clearTimeout(timer);
  }
}
