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
 * `requestTimeoutMs` is for batch work whose statements run longer than a request (the demo seed).
 */
export function createClickhouse(
  database: string | undefined = config.clickhouse.database,
  options: { compressResponses?: boolean; requestTimeoutMs?: number } = {},
): ClickHouseClient {
  return createClient({
    url: config.clickhouse.url,
    database,
    // A long statement sends progress headers now and then, so nothing between here and the server takes the connection for idle.
    clickhouse_settings:
      options.requestTimeoutMs === undefined
        ? CLICKHOUSE_SETTINGS
        : { ...CLICKHOUSE_SETTINGS, send_progress_in_http_headers: 1, http_headers_progress_interval_ms: '50000' },
    request_timeout: options.requestTimeoutMs ?? config.timeouts.clickhouseRequestMs,
    // An idle pooled socket is dropped after 2.5 s (the client's default), below the server's keep-alive timeout
    // (docs/deploy.md). Checked by age when a request takes one too: on a busy machine the timer that drops it fires late.
    keep_alive: { idle_socket_ttl: 2_500, eagerly_destroy_stale_sockets: true },
    ...(options.compressResponses === false ? { compression: { response: false } } : {}),
  });
}
