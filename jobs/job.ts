import type { ClickHouseClient } from '@clickhouse/client';
import type { Pool } from 'pg';
import type { Db } from '../lib/db';

/**
 * A background job: work the system does on its own, again and again (move
 * events to ClickHouse, export the ledger, forward DSP feedback, apply
 * retention). Every job follows one pattern:
 * - defined here, as a `run` that does one unit of work and says whether more
 *   is waiting right away, and how long to rest when it is not;
 * - hosted by one Temporal workflow per job (workflows/background-job.ts), which
 *   the worker starts (worker/jobs.ts): one run at a time per task queue,
 *   visible in the Temporal UI, restarted by the next worker when one dies;
 * - run for a slice of time by one generic activity (activities/jobs.ts), which
 *   heartbeats, stops when the worker shuts down, and counts every run in the
 *   worker's metrics (`worker_job_*`);
 * - retried by Temporal with backoff when a run fails (the slice fails, the
 *   activity's retry policy starts it again).
 * Jobs that must not run twice at once (the movers) also hold a PostgreSQL
 * advisory lock, since a test or a second deployment may run one beside the worker.
 */
export interface JobDeps {
  db: Db;
  pool: Pool;
  clickhouse: ClickHouseClient;
  /** ClickHouse database. */
  database: string;
  /** Liveness for the host while a run waits (a Temporal activity's heartbeat). */
  heartbeat: () => void;
  /** Hands webhook deliveries to their Temporal workflows (the worker's client); a host without it skips the webhook dispatch job. */
  webhookDeliveries?: (deliveries: { id: string; endpointId: string; orderingKey: string }[]) => Promise<void>;
}

export interface JobRun {
  /** Items the run handled (rows moved, calls sent, partitions dropped...). */
  items: number;
  /** More work is waiting: run again at once. */
  more: boolean;
}

export interface Job {
  name: string;
  /** How long to rest after a run that left no work waiting. */
  restMs: number;
  /** Housekeeping that should not run the moment a worker starts (the first run waits restMs). */
  restFirst?: boolean;
  run(deps: JobDeps): Promise<JobRun>;
}

export const defineJob = (job: Job): Job => job;

/**
 * Runs a job until it reports no more work or a run handles nothing (tests,
 * shutdown drains); returns the items handled. A long-polling job (the event
 * pipeline) always says `more`, so an empty run is what ends the drain.
 */
export async function runUntilIdle(job: Job, deps: JobDeps): Promise<number> {
  let items = 0;
  for (;;) {
    const run = await job.run(deps);
    items += run.items;
    if (!run.more || run.items === 0) return items;
  }
}
