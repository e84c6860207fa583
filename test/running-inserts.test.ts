/**
 * lib/clickhouse/running-inserts.ts against the real ClickHouse: a recovering
 * writer (the delivery exporter, the event mover) waits for a dead writer's
 * insert that ClickHouse is still running, whether its target names the database or not.
 */
import { randomUUID } from 'node:crypto';
import { createClickhouse } from '../lib/clickhouse/client';
import { deadInsertsSettled } from '../lib/clickhouse/running-inserts';
import { config } from '../lib/config';

const ch = createClickhouse();
const table = `running_inserts_${randomUUID().replaceAll('-', '')}`;

beforeAll(async () => {
  await ch.command({ query: `CREATE TABLE ${table} (n UInt32) ENGINE = Memory` });
});
afterAll(async () => {
  await ch.command({ query: `DROP TABLE IF EXISTS ${table}` });
  await ch.close();
});

/**
 * An insert ClickHouse is still writing after its writer sent it whole (what a
 * writer killed while waiting for the answer leaves): two rows, half a second
 * each in the server.
 */
const slowInsert = (target: string) =>
  ch.command({ query: `INSERT INTO ${target} SELECT toUInt32(sleepEachRow(0.5) + number + 1) FROM system.numbers LIMIT 2` });

const rows = async () => Number((await (await ch.query({ query: `SELECT count() AS n FROM ${table}`, format: 'JSONEachRow' })).json<{ n: number }>())[0].n);

test.each([
  ['the table alone', () => table],
  ['database.table', () => `${config.clickhouse.database}.${table}`],
])('waits until an insert into %s has ended, then every row it sent is visible', async (_name, target) => {
  const before = await rows();
  const ended = slowInsert(target());
  await new Promise((r) => setTimeout(r, 200)); // the insert is under way
  const waitFrom = Date.now();
  await deadInsertsSettled(ch, [target()], { minWaitMs: 0, pollMs: 50 });
  // Both rows are there at once: looked up any earlier, the second would have been missing.
  expect(await rows()).toBe(before + 2);
  expect(Date.now() - waitFrom).toBeGreaterThanOrEqual(500);
  await ended;
});

test('returns after minWaitMs when nothing runs', async () => {
  const started = Date.now();
  await deadInsertsSettled(ch, [table], { minWaitMs: 200, pollMs: 50 });
  expect(Date.now() - started).toBeGreaterThanOrEqual(200);
});
