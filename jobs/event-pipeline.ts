import { config } from '../lib/config';
import { geoLookup } from '../domain/events/geo';
import { moveEventBatch } from './event-mover';
import { defineJob } from './job';

/**
 * Accepted events, inbox -> ClickHouse, exactly once (jobs/event-mover.ts).
 * A run long-polls the inbox (up to 5 s) and moves one batch, gathering up to
 * EVENT_PIPELINE_GATHER_MS for it to fill: ClickHouse costs far less per row in
 * large inserts. It rests only when another mover holds the lock.
 */
export const eventPipelineJob = defineJob({
  name: 'event-pipeline',
  restMs: 1_000,
  async run({ db, clickhouse, heartbeat }) {
    const moved = await moveEventBatch(
      { db, clickhouse, geo: geoLookup, heartbeat },
      { waitMs: 5_000, batchSize: config.events.pipelineBatch, gatherMs: config.events.pipelineGatherMs },
    );
    return { items: moved.moved, more: !moved.busy };
  },
});
