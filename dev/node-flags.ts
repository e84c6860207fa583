/**
 * Node flags each service runs with, wherever it is started (`npm start`,
 * tests and benchmarks through dev/processes.ts, bench:auction): one place, so
 * what is measured is what runs. Passed on node's command line (`node <flags>
 * --import tsx <entry>`): NODE_OPTIONS refuses most V8 flags.
 *
 * api:
 * - a 32 MB young generation (V8's default is 16 MB). The pixel and event
 *   paths allocate per request; with the default, scavenges came often and
 *   promoted enough to bring old-generation pauses: bench:tracking's pixels at
 *   2,000/s had p99 114-335 ms with the default, 48-55 ms with 32 MB.
 * - no allocation-site pretenuring. Under the pixel load V8 at times decided
 *   that objects of the pixel path (its token claims, the ledger's row arrays)
 *   live long and allocated them straight in the old generation, where they
 *   died: the old generation then grew 1-4 MB per scavenge, a full collection
 *   every 3-4 s (4-10 ms pauses) and scavenges twice as long. Three paired
 *   20 s runs at 3,000 pixels/s: growth per scavenge 0.85 / 3.9 / 4.1 MB with
 *   it, 0.03-0.05 MB without; mean scavenge 4.1-6.2 ms against 1.8-2.1 ms.
 *
 * auction: its old generation may grow to 3 x its live heap before a full
 * collection (V8's own factor goes from 1.1 to 4 with the allocation rate: about
 * 1.9 in the auction at 500 auctions/s, a 51 MB limit over 27 MB live). V8
 * starts incremental marking once the room left drops below the young
 * generation's capacity (~16 MB), so that left a few MB of promotion between
 * full collections: one every 2-4 s, each with main-thread marking steps and a
 * final pause of 2-12 ms, the tail of the auction's latency (bench:auction with
 * BENCH_GC_TRACE=1: 40-64 % of the slowest 2 % overlapped an auction GC pause,
 * 10-17 % after).
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
export const serviceNodeArgs = (service: string, entryPath: string, extraFlags: string[] = []) =>
  [...(SERVICE_NODE_FLAGS[service] ?? []), ...extraFlags, '--import', 'tsx', entryPath];
