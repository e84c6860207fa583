import { createTable } from '../../lib/clickhouse/schema';
import { identifier } from '../../lib/clickhouse/sql';

/**
 * ClickHouse table of collected events (one row per accepted, deduplicated
 * event), written only by the event pipeline. Plain MergeTree: exactly-once is
 * the pipeline's job (see jobs/event-mover.ts), so reads need no FINAL.
 * `params` and `consent` are JSON strings, queryable with `visitParamExtractString(params, 'plan')`
 * (ClickHouse 18.16) or `JSONExtractString(params, 'plan')` (19.x and later).
 */
export const COLLECTED_EVENTS_TABLE = 'collected_events';

export function eventTables(database: string): string[] {
  const db = identifier(database);
  return [
    createTable(
      `${db}.${COLLECTED_EVENTS_TABLE}`,
      `
       inbox_id UInt64,
       organization_id String,
       event_id String,
       event_name String,
       tag_id String,
       timestamp DateTime,
       received_at DateTime,
       channel String,
       page_url String,
       referrer String,
       user_agent String,
       session_id String,
       client_id String,
       click_id String,
       impression_id String,
       bid_id String,
       attribution_type String,
       consent String,
       params String,
       ip_address String,
       geo_country String,
       geo_region String,
       geo_city String,
       geo_lat Nullable(Float64),
       geo_lon Nullable(Float64),
       ua_browser String,
       ua_os String,
       ua_device String`,
      { engine: 'MergeTree()', partitionBy: 'toYYYYMM(received_at)', orderBy: 'organization_id, timestamp, inbox_id' },
    ),
  ];
}
