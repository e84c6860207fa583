/**
 * Bounds for waits that must never be open-ended (closing pools, connections,
 * servers). A bound that passes is reported, not thrown: a close that gave up
 * still lets the process finish its shutdown.
 */
export class DeadlineExceeded extends Error {
  constructor(
    readonly label: string,
    readonly ms: number,
  ) {
    super(`${label} did not finish within ${ms} ms`);
    this.name = 'DeadlineExceeded';
  }
}

/** `work`, or a DeadlineExceeded rejection once `ms` have passed (the timer never holds the process open). */
export function withDeadline<T>(work: Promise<T>, ms: number, label: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineExceeded(label, ms)), ms);
    timer.unref();
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

/** Runs a close step within `ms`; a failure or a passed bound is logged and the shutdown goes on. */
export async function closeWithin(ms: number, label: string, close: () => Promise<unknown>): Promise<void> {
  try {
    await withDeadline(Promise.resolve().then(close), ms, label);
  } catch (err) {
    console.error(`${label}: ${(err as Error).message}`);
  }
}
