/**
 * The auction log's off-heap row queue: rows come out newline-terminated, in
 * order, across chunk boundaries; a failed batch goes back in front, and past
 * the bound the oldest batches are dropped.
 */
import { RowQueue } from '../../auction/log/writer';

const text = (batch: { chunks: Buffer[] } | null) => Buffer.concat(batch?.chunks ?? []).toString('utf8');

test('rows in order across chunks, one batch per take, empty afterwards', () => {
  const q = new RowQueue(1_000_000);
  const rows = Array.from({ length: 3000 }, (_, i) => JSON.stringify({ i, pad: 'é'.repeat(i % 300) }));
  for (const r of rows) q.push(r);
  expect(q.rows).toBe(3000);
  const batch = q.take();
  expect(batch?.rows).toBe(3000);
  expect(batch!.chunks.length).toBeGreaterThan(1);
  expect(text(batch)).toBe(`${rows.join('\n')}\n`);
  expect(q.take()).toBeNull();
  expect(q.rows).toBe(0);
  const big = 'x'.repeat(600 * 1024);
  q.push(big);
  expect(text(q.take())).toBe(`${big}\n`);
});

test('a failed batch goes back in front; past the bound the oldest batches are dropped', () => {
  const q = new RowQueue(3);
  q.push('a');
  q.push('b');
  const failed = q.take()!;
  q.push('c');
  q.putBack(failed);
  expect(q.rows).toBe(3);
  const again = q.take()!;
  expect(text(again)).toBe('a\nb\nc\n');
  q.push('d');
  q.push('e');
  q.putBack(again);
  expect(q.rows).toBe(2);
  expect(text(q.take())).toBe('d\ne\n');
});
