import { identifier } from '../../lib/clickhouse/sql';

/**
 * ClickHouse tables of delivery data (our own supply): DDL beside the code that
 * writes and reads them. Applied by scripts/clickhouse-migrate.ts.
 */
export function deliveryTables(database: string): string[] {
  const db = identifier(database);
  return [
    // One row per delivery event (auction outcome, impression, click, spend) of our own supply.
    `CREATE TABLE IF NOT EXISTS ${db}.delivery_events (
       event_id String,
       event_type String,
       event_time DateTime,
       organization_id String,
       ad_account_id String,
       campaign_id String,
       ad_group_id String,
       ad_id String,
       source String,
       country String,
       device String,
       spend_micros Int64
     ) ENGINE = ReplacingMergeTree()
     PARTITION BY toYYYYMM(event_time)
     ORDER BY (organization_id, campaign_id, event_time, event_id)`,
  ];
}
