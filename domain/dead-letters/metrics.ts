import { Gauge, type Registry } from 'prom-client';
import type { Db } from '../../lib/db';
import { countDeadLetters } from './store';

/**
 * `<prefix>_dead_letters{table}`: dead letters waiting for an operator, read
 * from the table at scrape time, so every process that serves it agrees
 * whichever mover set them aside. Alert on any increase.
 */
export function registerDeadLetterGauge(registry: Registry, prefix: string, db: Db): void {
  new Gauge({
    name: `${prefix}_dead_letters`,
    help: 'Rows ClickHouse refused, set aside by their mover (adctl dead-letters list), by target table',
    labelNames: ['table'],
    registers: [registry],
    async collect() {
      const counts = await countDeadLetters(db);
      this.reset();
      for (const [table, count] of Object.entries(counts)) this.set({ table }, count);
    },
  });
}
