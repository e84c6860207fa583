import { GroupCommit } from '../../lib/group-commit';

describe('GroupCommit', () => {
  it('writes what arrives during a flush in the next flush, and answers each caller after its flush', async () => {
    const flushes: number[][] = [];
    let release!: () => void;
    const firstFlushBlocked = new Promise<void>((r) => {
      release = r;
    });
    const commit = new GroupCommit<number, string>(
      async (items) => {
        flushes.push(items);
        if (flushes.length === 1) await firstFlushBlocked; // the first commit is slow
        return items.map((i) => `ok ${i}`);
      },
      { maxBatch: 1000, maxConcurrentFlushes: 1 },
    );

    const first = commit.submit(0);
    const rest = Array.from({ length: 50 }, (_, i) => commit.submit(i + 1));
    expect(flushes).toEqual([[0]]); // idle: flushed at once, alone
    release();
    expect(await first).toBe('ok 0');
    expect(await Promise.all(rest)).toEqual(Array.from({ length: 50 }, (_, i) => `ok ${i + 1}`));
    expect(flushes).toHaveLength(2); // the 50 waiting ones shared one flush
    expect(flushes[1]).toHaveLength(50);
  });

  it('splits at maxBatch and fails every caller of a failed flush', async () => {
    const sizes: number[] = [];
    const commit = new GroupCommit<number, number>(
      async (items) => {
        sizes.push(items.length);
        if (items.includes(13)) throw new Error('disk full');
        return items;
      },
      { maxBatch: 4, maxConcurrentFlushes: 1 },
    );
    const results = await Promise.allSettled(Array.from({ length: 14 }, (_, i) => commit.submit(i)));
    expect(sizes.every((n) => n <= 4)).toBe(true);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(14);
    const failed = results.filter((r) => r.status === 'rejected');
    expect(failed.length).toBe(sizes[sizes.length - 1]); // the batch holding 13, all of it
  });
});

describe('GroupCommit with minSpacingMs', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('flushes an idle item at once; what arrives within the spacing waits and shares one flush; a full batch goes at once', async () => {
    const flushes: number[][] = [];
    const commit = new GroupCommit<number, number>(
      async (items) => {
        flushes.push(items);
        return items;
      },
      { maxBatch: 3, maxConcurrentFlushes: 1, minSpacingMs: 100 },
    );

    await expect(commit.submit(0)).resolves.toBe(0);
    expect(flushes).toEqual([[0]]); // idle: at once

    const waiting = [commit.submit(1), commit.submit(2)];
    await jest.advanceTimersByTimeAsync(50);
    expect(flushes).toEqual([[0]]); // within the spacing: held
    await jest.advanceTimersByTimeAsync(50);
    expect(await Promise.all(waiting)).toEqual([1, 2]);
    expect(flushes).toEqual([[0], [1, 2]]); // together, one flush

    const full = [commit.submit(3), commit.submit(4), commit.submit(5)];
    await jest.advanceTimersByTimeAsync(0);
    expect(await Promise.all(full)).toEqual([3, 4, 5]);
    expect(flushes).toEqual([[0], [1, 2], [3, 4, 5]]); // a full batch is not held back

    await jest.advanceTimersByTimeAsync(1000);
    await expect(commit.submit(6)).resolves.toBe(6);
    expect(flushes).toHaveLength(4); // idle again: at once
  });
});
