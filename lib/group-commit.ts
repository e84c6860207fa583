/**
 * Group commit: callers submit one item each and wait; items that arrive while
 * a flush is in flight wait for the next one, which then writes them all in one
 * statement. Under load a flush carries many requests (one commit, one fsync
 * for all of them); when idle an item is flushed at once (no timer delay).
 *
 * `minSpacingMs` spaces the starts of flushes at least that far apart. A flush
 * has a fixed cost (a round trip, statement setup, a commit) however few items
 * it carries; back to back, short flushes carrying a handful of items each
 * spend most of the database's CPU on that fixed cost. Spaced, the same load
 * arrives in fewer, fuller flushes, for at most `minSpacingMs` of added wait
 * (and none when idle: the first item after a pause is flushed at once).
 */
/**
 * A flush's answer for one item that failed on its own (the rest of the flush
 * succeeded): that caller's promise rejects with `error`, the others resolve.
 */
export class ItemFailure {
  constructor(readonly error: unknown) {}
}

export class GroupCommit<T, R> {
  private queue: { item: T; resolve: (r: R) => void; reject: (e: unknown) => void }[] = [];
  private inFlight = 0;
  private lastStart = -Infinity;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    /** Writes a batch and returns one result per item, in order (an ItemFailure fails that item alone). */
    private readonly flush: (items: T[]) => Promise<(R | ItemFailure)[]>,
    private readonly options: { maxBatch: number; maxConcurrentFlushes: number; minSpacingMs?: number },
  ) {}

  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.options.maxConcurrentFlushes && this.queue.length > 0) {
      const wait = this.lastStart + (this.options.minSpacingMs ?? 0) - performance.now();
      // A full batch goes at once: spacing exists to fill batches, not to hold full ones back.
      if (wait > 0 && this.queue.length < this.options.maxBatch) {
        this.timer ??= setTimeout(() => {
          this.timer = null;
          this.pump();
        }, wait);
        return;
      }
      if (this.timer) {
        clearTimeout(this.timer);
        this.timer = null;
      }
      this.lastStart = performance.now();
      const batch = this.queue.splice(0, this.options.maxBatch);
      this.inFlight += 1;
      this.flush(batch.map((b) => b.item))
        .then(
          (results) =>
            batch.forEach((b, i) => {
              const result = results[i];
              if (result instanceof ItemFailure) b.reject(result.error);
              else b.resolve(result);
            }),
          (err) => batch.forEach((b) => b.reject(err)),
        )
        .finally(() => {
          this.inFlight -= 1;
          this.pump();
        });
    }
  }
}
