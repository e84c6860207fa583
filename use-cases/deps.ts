import type { Client } from '@temporalio/client';
import type { Db } from '../lib/db';
import type { EagerStart } from '../workflows/clients/campaign-creation';

/**
 * What a use case needs: the database it writes and the Temporal client it
 * tells. Routes, the dashboard and adctl hold both and pass them in.
 */
export interface UseCaseDeps {
  db: Db;
  temporal: Client;
  /** The api process's campaign-creation worker (worker/creation-worker.ts): creates start eagerly on it. */
  eagerStart?: EagerStart;
}
