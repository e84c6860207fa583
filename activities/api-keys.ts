import type { Db } from '../lib/db';
import { retireRotatedKey } from '../domain/api-keys/service';

/** The key-rotation grace workflow's write (workflows/key-rotation-grace.ts). */
export function apiKeyActivities(db: Db) {
  return { retireApiKey: (apiKeyId: string): Promise<void> => retireRotatedKey(db, apiKeyId) };
}
