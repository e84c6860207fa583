import type { Client } from '@temporalio/client';
import { temporalConfig } from '../../temporal.config';
import type { MintedKey } from '../../domain/api-keys/service';
import { keyRotationGrace, keyRotationGraceWorkflowId } from '../key-rotation-grace';

/** How long a rotation waits for Temporal before answering anyway. */
const WAIT_MS = 2000;

/**
 * After a mint: starts the grace workflow of the key it rotated out, and
 * cancels the grace workflows of keys the mint retired early (their keys are
 * already refused: authentication reads `expires_at`, so these workflows only
 * make retirement explicit and visible in the Temporal UI, where an ended
 * grace shows as Canceled).
 *
 * Waits at most `waitMs`: against an unreachable server the client retries
 * for 20 s and more, while the rotation is already committed and its new
 * secret, shown only once, would be lost to a client timeout. Failures are
 * logged, never thrown.
 */
export async function settleKeyRotation(temporal: Client, minted: Pick<MintedKey, 'rotatedOut' | 'retiredEarly'>, waitMs = WAIT_MS): Promise<void> {
  const work: Promise<unknown>[] = minted.retiredEarly.map((id) => endKeyRotationGrace(temporal, id));
  if (minted.rotatedOut) {
    const { id, expiresAt } = minted.rotatedOut;
    work.push(
      temporal.workflow
        .start(keyRotationGrace, {
          taskQueue: temporalConfig.taskQueues.main,
          workflowId: keyRotationGraceWorkflowId(id),
          args: [{ apiKeyId: id, expiresAtMs: expiresAt.getTime() }],
        })
        .catch((err: Error) => console.error(`key rotation grace workflow not started: ${err.message}`)),
    );
  }
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.all(work),
    new Promise((resolve) => {
      timer = setTimeout(resolve, waitMs);
    }),
  ]);
  clearTimeout(timer);
}

/** Ends the grace workflow of a key retired before its window was over (no-op when there is none). */
export async function endKeyRotationGrace(temporal: Client, apiKeyId: string): Promise<void> {
  try {
    await temporal.workflow.getHandle(keyRotationGraceWorkflowId(apiKeyId)).cancel();
  } catch (err) {
    // Not found or already closed: nothing left to end.
    if (!/not found|already completed|already closed/i.test((err as Error).message)) {
      console.error(`key rotation grace of ${apiKeyId} not ended: ${(err as Error).message}`);
    }
  }
}
