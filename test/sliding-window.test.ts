/**
 * The per-key budget's counting rule (domain/rate-limits/sliding-window.ts),
 * with explicit clocks so the window position is exact; each test has its own
 * bucket.
 */
import { randomUUID } from 'node:crypto';
import { consume, WINDOW_MS } from '../domain/rate-limits/sliding-window';
import { closeDb, createDb, type Db } from '../lib/db';

let db: Db;
beforeAll(() => {
  db = createDb(undefined, 2);
});
afterAll(() => closeDb(db));

const bucket = () => `test:${randomUUID()}`;
/** A window start in the future, so no real request shares these windows and no prune removes them. */
const windowStart = Math.floor((Date.now() + 10 * WINDOW_MS) / WINDOW_MS) * WINDOW_MS;

async function countOf(name: string, start: number): Promise<number | null> {
  const row = await db.rateLimitCounter.findFirst({ where: { bucket: name, windowStart: new Date(start) } });
  return row ? row.count : null;
}

test('refused requests are not counted: the bucket holds only the allowed ones', async () => {
  const name = bucket();
  const at = windowStart + 60_000;
  const verdicts = [];
  for (let i = 0; i < 5; i += 1) verdicts.push(await consume(db, name, 2, at + i));
  expect(verdicts.map((v) => v.allowed)).toEqual([true, true, false, false, false]);
  expect(verdicts.map((v) => v.remaining)).toEqual([1, 0, 0, 0, 0]);
  expect(await countOf(name, windowStart)).toBe(2);
});

test('the previous hour weighs in by the part of it still inside the last hour', async () => {
  const name = bucket();
  // 4 requests late in the previous window, limit 4.
  for (let i = 0; i < 4; i += 1) expect((await consume(db, name, 4, windowStart - 60_000 + i)).allowed).toBe(true);
  // A quarter into the new window, 3/4 of the previous count still weighs: floor(4 * 0.75) = 3,
  // so one request fits and the second is refused (a window blind to the previous hour allows 4).
  const quarter = windowStart + WINDOW_MS / 4;
  const first = await consume(db, name, 4, quarter);
  const second = await consume(db, name, 4, quarter);
  expect([first.allowed, first.remaining]).toEqual([true, 0]);
  expect(second.allowed).toBe(false);
  // Three quarters in, only floor(4 * 0.25) = 1 weighs: with the 1 counted, 2 more fit.
  const late = windowStart + (WINDOW_MS * 3) / 4;
  const more = [await consume(db, name, 4, late), await consume(db, name, 4, late), await consume(db, name, 4, late)];
  expect(more.map((v) => v.allowed)).toEqual([true, true, false]);
});
