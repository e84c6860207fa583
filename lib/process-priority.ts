import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/**
 * Lowers this process's CPU priority to `nice` (0-19), every thread of it.
 * On Linux a nice value belongs to a thread, and threads inherit it only when
 * created: V8's GC helpers and the runtime's threads already exist at startup,
 * so each is set through /proc/self/task. Elsewhere the process as a whole.
 * Never raises a priority: a thread already below it is left as it is.
 * A process that leads its own session (dev/node-flags.ts, OWN_SESSION) also
 * lowers its scheduling group's (lowerOwnAutogroup).
 */
export function lowerOwnPriority(nice: number): void {
  if (nice <= 0) return;
  lowerOwnAutogroup(nice);
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

/**
 * Under Linux autogroups a nice weighs only against the threads of the same
 * group (one per session), so the group's own nice is what orders it against
 * the other services and the databases. Set only by a session leader: a
 * process started in its launcher's session (a shell's, a test runner's) would
 * lower every process of it. Nothing without autogroups.
 */
function lowerOwnAutogroup(nice: number): void {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // After the command name in parentheses: state, ppid, pgrp, session.
    const session = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[3]);
    if (session !== process.pid) return;
    const current = /nice (-?\d+)/.exec(readFileSync('/proc/self/autogroup', 'utf8'));
    if (current && Number(current[1]) < nice) writeFileSync('/proc/self/autogroup', String(nice));
  } catch {
    /* not Linux, or no autogroups */
  }
}
