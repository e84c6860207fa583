import { readdirSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/**
 * Lowers this process's CPU priority to `nice` (0-19), every thread of it.
 * On Linux a nice value belongs to a thread, and threads inherit it only when
 * created: V8's GC helpers and the runtime's threads already exist at startup,
 * so each is set through /proc/self/task. Elsewhere the process as a whole.
 * Never raises a priority: a thread already below it is left as it is.
 */
export function lowerOwnPriority(nice: number): void {
  if (nice <= 0) return;
  let threads: string[] = [];
  try {
    threads = readdirSync('/proc/self/task');
  } catch {
    /* not Linux */
  }
  if (threads.length === 0) {
    if (getPriority() < nice) setPriority(nice);
    return;
  }
  for (const tid of threads) {
    try {
      if (getPriority(Number(tid)) < nice) setPriority(Number(tid), nice);
    } catch {
      /* a thread that just ended */
    }
  }
}
