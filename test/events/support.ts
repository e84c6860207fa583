import { createClickhouse } from '../../lib/clickhouse/client';
import { sql } from '../../lib/clickhouse/sql';
import type { Db } from '../../lib/db';
import { organizationIdOf } from '../support/fixtures';
import { newOrg } from '../support/harness';
import { eventually } from '../support/wait';

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
export function waitForEvents(organizationId: string, done: (rows: Record<string, any>[]) => boolean): Promise<Record<string, any>[]> {
  return eventually(() => storedEvents(organizationId), done);
}

/** A fresh organization's API key and internal id. */
export async function keyedOrg(db: Db): Promise<{ key: string; id: string }> {
  const created = await newOrg(db);
  return { key: created.api_key, id: await organizationIdOf(db, created) };
}

export async function apiKeyIdOf(db: Db, organizationId: string): Promise<string> {
  return (await db.apiKey.findFirstOrThrow({ where: { organizationId }, select: { id: true } })).id;
}
