import { ApplicationFailure, WorkflowExecutionAlreadyStartedError, WorkflowFailedError, type Client } from '@temporalio/client';
import { DomainError } from '../../domain/errors';
import { temporalConfig } from '../../temporal.config';
import { campaignCreation, type CampaignCreationInput, type CampaignCreationResult, type SagaError } from '../campaign-creation';

/**
 * Starts the campaign-creation saga under `workflowId` (or attaches to the run
 * already there) and waits at most `timeoutMs` for its result. Past that, the
 * request answers 503 `request_timeout` while the saga keeps going: a retry with
 * the same Idempotency-Key has the same workflow id, so it attaches to the same
 * run and answers its real outcome (one campaign, one charge).
 */
export async function runCreationSaga(temporal: Client, workflowId: string, input: CampaignCreationInput, timeoutMs: number): Promise<CampaignCreationResult> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), timeoutMs);
  try {
    // Every RPC inside (the start and the result's long poll) is cancelled at the deadline.
    return await temporal.withAbortSignal(deadline.signal, async () => sagaResult(await startOrAttach(temporal, workflowId, input)));
  } catch (err) {
    if (deadline.signal.aborted) throw timedOut(timeoutMs);
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

const timedOut = (timeoutMs: number) =>
  new DomainError(
    'request_timeout',
    `The campaign was not created within ${Math.round(timeoutMs / 1000)} s; it may still be in progress. ` +
      'Retry with the same Idempotency-Key to get its outcome.',
  );

async function startOrAttach(temporal: Client, workflowId: string, input: CampaignCreationInput) {
  try {
    return await temporal.workflow.start(campaignCreation, {
      taskQueue: temporalConfig.taskQueues.main,
      workflowId,
      args: [input],
      // A completed run is the answer for good; a failed one (a 5xx) may run again.
      workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    return temporal.workflow.getHandle<typeof campaignCreation>(workflowId);
  }
}

/** A failed saga run carries its 5xx answer as the failure's details. */
async function sagaResult(handle: { result(): Promise<CampaignCreationResult> }): Promise<CampaignCreationResult> {
  try {
    return await handle.result();
  } catch (err) {
    const cause = err instanceof WorkflowFailedError ? err.cause : null;
    const details = cause instanceof ApplicationFailure ? (cause.details?.[0] as SagaError | undefined) : undefined;
    if (details?.code) return { ok: false, error: details };
    throw err;
  }
}
