import { creationTime } from '../domain/campaigns/tree';

/** Rows of one tree are written within a millisecond or two: their created_at must still follow the order they were written in. */
test('creation times strictly increase, even within one millisecond', () => {
  const times = Array.from({ length: 200 }, () => creationTime());
  for (let i = 1; i < times.length; i++) expect(times[i] > times[i - 1]).toBe(true);
  // A `timestamp` literal in UTC with milliseconds, as the columns hold them.
  expect(times[0]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/);
  expect(Math.abs(Date.parse(`${times[0]}Z`) - Date.now())).toBeLessThan(5_000);
});
