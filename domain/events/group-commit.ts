/**
 * Group commit: callers submit one item each and wait; items that arrive while
 * a flush is in flight wait for the next one, which then writes them all in one
 * statement. Under load a flush carries many requests (one commit, one fsync
 * for all of them); when idle an item is flushed at once (no timer delay).
 */
export class GroupCommit<T, R> {
  private queue: { item: T; resolve: (r: R) => void; reject: (e: unknown) => void }[] = [];
  private inFlight = 0;

  constructor(
    /** Writes a batch and returns one result per item, in order. */
    private readonly flush: (items: T[]) => Promise<R[]>,
    private readonly options: { maxBatch: number; maxConcurrentFlushes: number },
  ) {}

  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.options.maxConcurrentFlushes && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.options.maxBatch);
      this.inFlight += 1;
      this.flush(batch.map((b) => b.item))
        .then(
          (results) => batch.forEach((b, i) => b.resolve(results[i])),
          (err) => batch.forEach((b) => b.reject(err)),
        )
        .finally(() => {
          this.inFlight -= 1;
          this.pump();
        });
    }
  }
}
