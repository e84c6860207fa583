import { proxyActivities, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities';

const { retireApiKey } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 10 },
});

export interface KeyRotationGraceInput {
  apiKeyId: string;
  /** End of the grace window, epoch milliseconds. */
  expiresAtMs: number;
}

/**
 * After a rotation the old key stays valid for its grace window; then it is
 * retired. Authentication checks `expires_at` itself, so nothing correct waits on
 * this timer: it makes the retirement explicit and visible in the Temporal UI.
 * A later rotation retires the key early and cancels this workflow
 * (workflows/clients/key-rotation-grace.ts): it then ends as Canceled.
 */
export async function keyRotationGrace({ apiKeyId, expiresAtMs }: KeyRotationGraceInput): Promise<void> {
  const remaining = expiresAtMs - Date.now();
  if (remaining > 0) await sleep(remaining);
  await retireApiKey(apiKeyId);
}

export const keyRotationGraceWorkflowId = (apiKeyId: string) => `key-rotation-grace-${apiKeyId}`;
