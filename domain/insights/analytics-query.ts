import type { ClickHouseClient } from '@clickhouse/client';
import { DomainError } from '../errors';

/** ClickHouse's TIMEOUT_EXCEEDED (max_execution_time reached). */
const TIMEOUT_EXCEEDED = '159';

export const analyticsTimeout = () =>
  new DomainError('analytics_timeout', 'The analytics query timed out; narrow the scope, window or granularity and retry');

/**
 * Runs a report query within a budget of whole seconds (ClickHouse 18.16 takes
 * only integers). The server enforces it itself through `max_execution_time`,
 * so a runaway query stops there too; a client timer one second later covers
 * a server that does not answer at all. Either way: `analytics_timeout`.
 */
export async function runAnalyticsQuery<Row>(ch: ClickHouseClient, query: string, budgetSeconds: number): Promise<Row[]> {
  const seconds = Math.max(1, Math.ceil(budgetSeconds));
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), seconds * 1000 + 1000);
  try {
    const result = await ch.query({
      query,
      format: 'JSONEachRow',
      abort_signal: abort.signal,
      clickhouse_settings: { max_execution_time: seconds, timeout_overflow_mode: 'throw' },
    });
    return await result.json<Row>();
  } catch (err) {
    if (abort.signal.aborted || (err as { code?: string }).code === TIMEOUT_EXCEEDED) throw analyticsTimeout();
    throw err;
  } finally {
    clearTimeout(timer);
  }
}
