import { readFileSync, readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/**
 * Where the machine's CPU went during a step, by role: the service under load,
 * the load generator, the databases. On a shared two-core machine this is what
 * says whether a tail comes from the code or from a machine with no CPU left
 * (Linux /proc; empty elsewhere). A process that ends during a step takes its
 * CPU of that step with it (short-lived ones are rare during a bench's steps).
 */
export type CpuByRole = Map<string, number>;

const USER_HZ = 100;
const named = new Map<number, string>();

/** Names the role of a process the bench started itself (e.g. its bare floor), which a command line does not tell. */
export function nameProcessRole(pid: number, role: string): void {
  named.set(pid, role);
}

/** A process's role, from its command line (this process: the load generator). */
function roleOf(pid: number, cmdline: string): string {
  const role = named.get(pid);
  if (role) return role;
  if (pid === process.pid) return 'load generator';
  if (cmdline.includes('api/server')) return 'api';
  if (cmdline.includes('worker/main')) return 'worker';
  if (/auction[/-]server/.test(cmdline)) return 'auction';
  if (cmdline.startsWith('postgres')) return 'postgres';
  if (cmdline.includes('clickhouse')) return 'clickhouse';
  if (cmdline.includes('temporal')) return 'temporal';
  return 'other';
}

/** CPU seconds (user + system) a process has used so far, all its threads (throws once it has ended). */
export function processCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / USER_HZ; // utime, stime
}

/** CPU seconds (user + system) each role has used so far, summed over its processes. */
export function cpuByRole(): CpuByRole {
  const byRole: CpuByRole = new Map();
  let pids: string[] = [];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return byRole;
  }
  for (const name of pids) {
    try {
      const seconds = processCpuSeconds(Number(name));
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' ');
      const role = roleOf(Number(name), cmdline);
      byRole.set(role, (byRole.get(role) ?? 0) + seconds);
    } catch {
      /* a process that just ended */
    }
  }
  return byRole;
}

/** "machine CPU: api 0.61, load generator 0.48, ... = 1.71 of 2 cores", busiest first, roles under 0.01 left out. */
export function machineCpuText(before: CpuByRole, after: CpuByRole, seconds: number): string {
  if (after.size === 0 || seconds <= 0) return 'machine CPU: not measured here';
  const used = [...after].map(([role, s]) => [role, Math.max(0, s - (before.get(role) ?? 0)) / seconds] as const).sort((a, b) => b[1] - a[1]);
  const total = used.reduce((sum, [, cores]) => sum + cores, 0);
  const parts = used.filter(([, cores]) => cores >= 0.01).map(([role, cores]) => `${role} ${cores.toFixed(2)}`);
  return `machine CPU: ${parts.join(', ')} = ${total.toFixed(2)} of ${availableParallelism()} cores`;
}
