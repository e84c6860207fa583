/**
 * Node flags each service runs with, wherever it is started (`npm start`,
 * tests and benchmarks through dev/processes.ts): one place, so what is
 * measured is what runs.
 *
 * api: a 32 MB young generation (V8's default is 16 MB). The pixel and event
 * paths allocate per request; with the default, scavenges came often and
 * promoted enough to bring old-generation pauses: bench:tracking's pixels at
 * 2,000/s had p99 114-335 ms with the default, 48-55 ms with 32 MB.
 */
export const SERVICE_NODE_FLAGS: Record<string, string[]> = {
  api: ['--max-semi-space-size=32'],
};

/** NODE_OPTIONS for a service started through a launcher (tsx) that passes it on to node. */
export const nodeOptionsFor = (service: string, current = process.env.NODE_OPTIONS) =>
  [current, ...(SERVICE_NODE_FLAGS[service] ?? [])].filter(Boolean).join(' ');
