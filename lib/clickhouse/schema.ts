import { createClickhouse } from './client';
import { identifier } from './sql';

/**
 * Applies ClickHouse DDL. Each table family's DDL lives beside the code that
 * queries it and exports `(database) => statements`; scripts/clickhouse-migrate.ts
 * lists the families. Every statement must be idempotent (`IF NOT EXISTS`).
 */
export type TableFamily = (database: string) => string[];

export async function applyClickhouseSchema(database: string, families: TableFamily[]): Promise<void> {
  // Connect without a database: the first statement creates it.
  const client = createClickhouse('default');
  try {
    await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${identifier(database)}` });
    for (const family of families) {
      for (const statement of family(database)) await client.command({ query: statement });
    }
  } finally {
    await client.close();
  }
}
