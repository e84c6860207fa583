/**
 * Node flags each service runs with, wherever it is started (`npm start`, tests
 * and benchmarks through dev/processes.ts): one place, so what is measured is
 * what runs. On node's command line, since NODE_OPTIONS refuses most V8 flags.
 * All three cut garbage-collection pauses that made the latency tail (bench/history.md, "What the node flags bought"):
 * - api: a larger young generation, and no allocation-site pretenuring (under
 *   pixel load V8 otherwise moved short-lived request objects to the old generation);
 * - auction: the old generation may grow to 3x its live heap before a full collection.
 */
export const SERVICE_NODE_FLAGS: Record<string, string[]> = {
  api: ['--max-semi-space-size=32', '--no-allocation-site-pretenuring'],
  auction: ['--heap-growing-percent=200'],
};

/**
 * node's arguments to run a service entry with its flags, tsx as the loader:
 * node itself, not the tsx launcher (which runs the script in a child of its
 * own), so a signal to the process, SIGKILL included, reaches the service.
 */
export const serviceNodeArgs = (service: string, entryPath: string, extraFlags: string[] = []) => [
  ...(SERVICE_NODE_FLAGS[service] ?? []),
  ...extraFlags,
  '--import',
  'tsx',
  entryPath,
];

/**
 * How a service process is spawned (`npm start`, tests and benchmarks): in a session of its own,
 * so that under Linux autogroups it is a scheduling group of its own. The scheduler shares the CPU
 * between groups first: services left in their launcher's session split one share among them (and,
 * in a benchmark, with the load generator) beside every PostgreSQL backend, each a group of its own;
 * and the worker's nice could only weigh inside that shared group (lib/process-priority.ts).
 * Detached, a child no longer gets the terminal's Ctrl-C: its launcher ends it.
 */
export const OWN_SESSION = { detached: true } as const;
