import { createClickhouse } from '../../lib/clickhouse/client';
import { sql } from '../../lib/clickhouse/sql';
import type { Db } from '../../lib/db';

export const clickhouse = createClickhouse();

/** The organization's collected events in ClickHouse. */
export async function storedEvents(organizationId: string): Promise<Record<string, any>[]> {
  const result = await clickhouse.query({
    query: `SELECT * FROM collected_events WHERE ${sql`organization_id = ${organizationId}`} ORDER BY inbox_id`,
    format: 'JSONEachRow',
  });
  return result.json();
}

/** Polls until `done(rows)` holds (the pipeline is asynchronous); the jest timeout bounds it. */
export async function waitForEvents(organizationId: string, done: (rows: Record<string, any>[]) => boolean): Promise<Record<string, any>[]> {
  for (;;) {
    const rows = await storedEvents(organizationId);
    if (done(rows)) return rows;
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function apiKeyIdOf(db: Db, organizationId: string): Promise<string> {
  return (await db.apiKey.findFirstOrThrow({ where: { organizationId }, select: { id: true } })).id;
}
