/**
 * The three reference DSPs of bench:auction, in their own process so that
 * their work competes neither with the load generator's event loop nor with
 * the service under test's. Each records, per request_id, how long it really
 * held the bid request (its simulated latency plus its own event-loop delay);
 * 'holds' hands the parent the slowest DSP's hold per request and forgets them.
 */
import { startReferenceDsp, type ReferenceDsp } from '../dev/reference-dsp/server';
import { serveBenchControl } from './child-control';

const LATENCY_MS = Number(process.env.BENCH_DSP_LATENCY_MS ?? 10);
const holds = new Map<string, number>();

async function main() {
  const dsps: ReferenceDsp[] = [];
  for (const price of [1.1, 1.7, 2.3]) {
    dsps.push(
      await startReferenceDsp({
        latencyMs: LATENCY_MS,
        price,
        key: null,
        onAnswered: (path, body, heldMs) => {
          const id = body?.request_id as string | undefined;
          if (path === '/native/bid' && id) holds.set(id, Math.max(holds.get(id) ?? 0, heldMs));
        },
      }),
    );
  }
  serveBenchControl(
    { urls: dsps.map((d) => d.url) },
    'dsps',
    async () => {
      for (const d of dsps) await d.close();
    },
    {
      holds: () => {
        const all = [...holds];
        holds.clear();
        return all;
      },
    },
  );
}

void main();
