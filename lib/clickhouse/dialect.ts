import type { ClickHouseClient } from '@clickhouse/client';

/**
 * What differs between the ClickHouse releases our SQL runs on, chosen per
 * server version: ClickHouse 18.16 (Debian's, the dev/CI server) and current
 * releases (tested on chdb 26.x, test/clickhouse-current.test.ts). Everything
 * else the builders write means the same on both. The version is asked once
 * per client (`SELECT version()`) and cached.
 *
 * - `anyInnerJoin`: 18.16's `ANY INNER JOIN` keeps every left row that has a
 *   match, joined to one right row. Since 20.1 (`any_join_distinct_right_table_keys`
 *   off by default) it keeps one row per key on both sides, dropping left rows
 *   that share a key; `SEMI LEFT JOIN` (not in 18.16) is the old meaning.
 * - `joinAlias`: current releases refuse a joined subquery without an alias
 *   (`joined_subquery_requires_alias`, ALIAS_REQUIRED); 18.16 needs none, and
 *   its SQL is left as it was.
 */
export interface ClickhouseDialect {
  /** The server's `version()`. */
  version: string;
  major: number;
  anyInnerJoin: 'ANY INNER JOIN' | 'SEMI LEFT JOIN';
  /** ` AS <name>` after each side of a join of subqueries where the server requires it, else ''. */
  joinAlias: (name: string) => string;
}

/** The first release with today's join semantics (SEMI JOIN, aliases required on joined subqueries). */
const CURRENT_JOINS_MAJOR = 20;

/** The dialect of a server version string (`18.16.1`, `26.9.2.1`). */
export function dialectOf(version: string): ClickhouseDialect {
  const major = Number(/^(\d+)\./.exec(version.trim())?.[1]);
  if (!Number.isInteger(major)) throw new Error(`unrecognised ClickHouse version: ${JSON.stringify(version)}`);
  const current = major >= CURRENT_JOINS_MAJOR;
  return {
    version: version.trim(),
    major,
    anyInnerJoin: current ? 'SEMI LEFT JOIN' : 'ANY INNER JOIN',
    joinAlias: current ? (name) => ` AS ${name}` : () => '',
  };
}

/** ClickHouse 18.16's dialect: what a builder writes when no dialect is given. */
export const CLICKHOUSE_18_16 = dialectOf('18.16.1');

const detected = new WeakMap<ClickHouseClient, Promise<ClickhouseDialect>>();

/** The dialect of the server behind `ch`, asked once per client (a failed ask is asked again next time). */
export function clickhouseDialect(ch: ClickHouseClient): Promise<ClickhouseDialect> {
  let dialect = detected.get(ch);
  if (!dialect) {
    dialect = ch
      .query({ query: 'SELECT version() AS version', format: 'JSONEachRow' })
      .then((result) => result.json<{ version: string }>())
      .then(([row]) => dialectOf(row.version));
    dialect.catch(() => detected.delete(ch));
    detected.set(ch, dialect);
  }
  return dialect;
}
