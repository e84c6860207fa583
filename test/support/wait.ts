/**
 * Waiting in tests: poll a condition, never a fixed sleep for something to
 * happen (workflows, the event pipeline, background writes are asynchronous).
 */

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface PollOptions {
  /** What is awaited, for the timeout's message. */
  what?: string;
  /** Give up after this long (default: never; the test's own timeout bounds it). */
  timeoutMs?: number;
  /** Pause between two reads. */
  everyMs?: number;
}

/** Reads until `done(value)` holds, and returns that value. */
export async function eventually<T>(read: () => T | Promise<T>, done: (value: T) => boolean, options: PollOptions = {}): Promise<T> {
  const { what = 'a condition', timeoutMs = Infinity, everyMs = 100 } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** Waits until `check` holds; throws after `timeoutMs`, naming `what`. */
export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  await eventually(check, (held) => held, { what, timeoutMs, everyMs: 20 });
}
