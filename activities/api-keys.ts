import type { Db } from '../lib/db';

export function apiKeyActivities(db: Db) {
  return {
    /** Marks a rotated-out key retired once its grace window is over. */
    async retireApiKey(apiKeyId: string): Promise<void> {
      await db.apiKey.updateMany({
        // The workflow's timer is the authority on when the window ended.
        where: { id: apiKeyId, isActive: false, revokedAt: null },
        data: { revokedAt: new Date() },
      });
    },
  };
}
