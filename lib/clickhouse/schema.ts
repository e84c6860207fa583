import { config } from '../config';
import { createClickhouse } from './client';
import { identifier } from './sql';

/**
 * ClickHouse tables. The DDL lives here, beside the module that applies it;
 * query builders for each table family live next to their readers.
 */
export function clickhouseSchema(database: string): string[] {
  const db = identifier(database);
  return [
    `CREATE DATABASE IF NOT EXISTS ${db}`,
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

export async function applyClickhouseSchema(database = config.clickhouse.database): Promise<void> {
  // Connect without a database: the first statement creates it.
  const client = createClickhouse('default');
  try {
    for (const statement of clickhouseSchema(database)) await client.command({ query: statement });
  } finally {
    await client.close();
  }
}
