import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { config } from '../config';

/**
 * Settings that ClickHouse 18.16 understands (newer settings fail every request there):
 * unquoted 64-bit integers in JSON output and lenient DateTime parsing on insert.
 */
export const CLICKHOUSE_SETTINGS = {
  output_format_json_quote_64bit_integers: 0,
  date_time_input_format: 'best_effort',
} as const;

/**
 * `compressResponses: false` suits latency-bound readers next to ClickHouse
 * (insights): gzip on both ends costs more time than a small answer saves.
 */
export function createClickhouse(database: string | undefined = config.clickhouse.database, options: { compressResponses?: boolean } = {}): ClickHouseClient {
  return createClient({
    url: config.clickhouse.url,
    database,
    clickhouse_settings: CLICKHOUSE_SETTINGS,
    request_timeout: config.timeouts.clickhouseRequestMs,
    ...(options.compressResponses === false ? { compression: { response: false } } : {}),
  });
}
