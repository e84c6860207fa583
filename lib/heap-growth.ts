import { setFlagsFromString } from 'node:v8';

/**
 * Lets V8's old generation grow to (1 + percent/100) x its live size before the
 * next full (mark-compact) collection, instead of V8's own factor (1.1 to 4 x,
 * lower when little is allocated per ms of running: about 1.9 x in the auction
 * at 500 auctions/s, a 51 MB limit over 27 MB live). V8 starts incremental
 * marking once the room left drops below the young generation's capacity
 * (~16 MB), so that left a few MB of promotion between full collections: one
 * every 2-4 s, each with main-thread marking steps and a final pause of 2-12 ms,
 * the tail of the auction's latency (bench:auction). The flag is read at every
 * collection, so setting it at start-up works. 0 leaves V8's own factor.
 */
export function setHeapGrowth(percent: number): void {
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${Math.floor(percent)}`);
}
