import type { Db } from '../lib/db';
import { apiKeyActivities } from './api-keys';
import { reviewActivities } from './review';

/** Dependencies of the activities, injected so tests can give them real local services. */
export interface ActivityDeps {
  db: Db;
}

export function createActivities(deps: ActivityDeps) {
  return {
    ...apiKeyActivities(deps.db),
    ...reviewActivities(deps.db),
  };
}

export type Activities = ReturnType<typeof createActivities>;
