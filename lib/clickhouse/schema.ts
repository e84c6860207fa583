import type { ClickHouseClient } from '@clickhouse/client';
import { createClickhouse } from './client';
import { identifier, sql } from './sql';

/**
 * Applies ClickHouse DDL. Each table family's DDL lives beside the code that
 * queries it and exports `(database) => statements`; scripts/clickhouse-migrate.ts
 * lists the families. Every statement must be idempotent (`IF NOT EXISTS`).
 */
export type TableFamily = (database: string) => string[];

/** Where a table's rows go: its engine, partition expression and sort key (without parentheses). */
export interface TableLayout {
  engine: string;
  partitionBy: string;
  orderBy: string;
}

/**
 * A table's idempotent CREATE (ClickHouse 18.16 syntax). `columns` is the SQL of
 * the column list (`name Type` entries, one a line after a newline).
 */
export function createTable(table: string, columns: string, { engine, partitionBy, orderBy }: TableLayout): string {
  return `CREATE TABLE IF NOT EXISTS ${table} (${columns}
     ) ENGINE = ${engine}
     PARTITION BY ${partitionBy}
     ORDER BY (${orderBy})`;
}

/** Through `ch` when given (left open), else a client of its own. */
export async function applyClickhouseSchema(database: string, families: TableFamily[], ch?: ClickHouseClient): Promise<void> {
  // Connect without a database: the first statement creates it.
  const client = ch ?? createClickhouse('default');
  try {
    await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${identifier(database)}` });
    for (const family of families) {
      for (const statement of family(database)) await client.command({ query: statement });
    }
  } finally {
    if (!ch) await client.close();
  }
}

/** A column a table gained after it was first created (its CREATE TABLE has it too, for new databases). */
export interface AddedColumn {
  table: string;
  column: string;
  /** Its type and default, as in `ALTER TABLE ... ADD COLUMN name <type>`. */
  type: string;
}

/** Adds each column its table lacks (ClickHouse 18.16 has no `ADD COLUMN IF NOT EXISTS`): run after the tables exist. */
export async function addMissingColumns(database: string, columns: AddedColumn[], ch?: ClickHouseClient): Promise<void> {
  const client = ch ?? createClickhouse('default');
  try {
    for (const { table, column, type } of columns) {
      const existing = await (
        await client.query({
          query: `SELECT name FROM system.columns WHERE ${sql`database = ${database} AND table = ${table} AND name = ${column}`}`,
          format: 'JSONEachRow',
        })
      ).json<{ name: string }>();
      if (existing.length === 0)
        await client.command({ query: `ALTER TABLE ${identifier(database)}.${identifier(table)} ADD COLUMN ${identifier(column)} ${type}` });
    }
  } finally {
    if (!ch) await client.close();
  }
}
