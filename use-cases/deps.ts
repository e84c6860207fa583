import type { Client } from '@temporalio/client';
import type { Db } from '../lib/db';

/**
 * What a use case needs: the database it writes and the Temporal client it
 * tells. Routes, the dashboard and adctl hold both and pass them in.
 */
export interface UseCaseDeps {
  db: Db;
  temporal: Client;
}
