import {
  ApplicationFailure,
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  WorkflowNotFoundError,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import { DomainError } from '../../domain/errors';
import { temporalConfig } from '../../temporal.config';
import { campaignCreation, campaignCreationWorkflowId, type CampaignCreationInput, type CampaignCreationResult, type SagaError } from '../campaign-creation';
import { campaignSearchAttributes } from '../search-attributes';

/**
 * A creation request: the saga's input but the campaign id, and the id of the
 * campaign its n-th run makes (0 first; the next after a failed run).
 */
export interface CampaignCreationRequest {
  input: Omit<CampaignCreationInput, 'campaignId'> & { organizationPublicId: string };
  campaignIdOf: (run: number) => string;
  /**
   * The run the request had before workflow ids held the campaign id
   * (`campaign-create-<key>`), looked up by `legacyRunOf`: one started under it
   * and retried since still answers. Drop once no such run is within the
   * namespace's retention.
   */
  legacyRun?: Promise<CreationRun | null | Error>;
}

type CreationRun = WorkflowHandle<typeof campaignCreation>;

/** A campaign-creation worker in this process (worker/creation-worker.ts), which starts take eagerly. */
export interface EagerStart {
  /** The client sharing the worker's connection while the worker runs; else null (creates are dispatched). */
  client(): Client | null;
  /** Told of each saga start: whether its first task came back in the start's answer. */
  started(eagerly: boolean): void;
}

/**
 * The run under the request's id of before (`campaign-create-<key>`) if it is
 * running or completed. Started by the caller while it reads what the saga's
 * input needs, so the lookup adds no round trip of its own; settles, never
 * rejects, so a caller that fails before awaiting it leaves nothing unhandled.
 */
export function legacyRunOf(temporal: Client, legacyWorkflowId: string): Promise<CreationRun | null | Error> {
  return liveRun(temporal, legacyWorkflowId).catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));
}

/** Most runs one request may go through (each failed one answered a 5xx). */
const MAX_RUNS = 100;

/**
 * Starts the campaign-creation saga (or attaches to the run already there) and
 * waits at most `timeoutMs` for its result. Past that, the request answers 503
 * `request_timeout` while the saga keeps going: a retry with the same
 * Idempotency-Key names the same campaign ids, so it attaches to the same run
 * and answers its real outcome (one campaign, one charge).
 */
export async function runCreationSaga(
  clients: { temporal: Client; eagerStart?: EagerStart },
  request: CampaignCreationRequest,
  timeoutMs: number,
): Promise<CampaignCreationResult> {
  const { eagerStart } = clients;
  const eager = eagerStart?.client() ?? null;
  const temporal = eager ?? clients.temporal;
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), timeoutMs);
  try {
    // Every RPC inside (the start and the result's long poll) is cancelled at the deadline.
    return await temporal.withAbortSignal(deadline.signal, async () => sagaResult(await startOrAttach(temporal, request, eager !== null, eagerStart)));
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

/**
 * The workflow id holds the campaign id (operators find a campaign's creation
 * by id), and a campaign id is never used twice: a failed run's compensation
 * retires it. So run n makes campaign `campaignIdOf(n)` under its own workflow
 * id: a running or completed run is the request's answer for good; a failed
 * one (a 5xx, nothing was created) leaves the request to the next run. Every
 * caller of one request walks the same ids, so concurrent retries meet on one run.
 */
async function startOrAttach(temporal: Client, { input, campaignIdOf, legacyRun }: CampaignCreationRequest, eager: boolean, eagerStart?: EagerStart) {
  const legacy = await legacyRun;
  if (legacy instanceof Error) throw legacy;
  if (legacy) return legacy;
  for (let run = 0; run < MAX_RUNS; run += 1) {
    const campaignId = campaignIdOf(run);
    const workflowId = campaignCreationWorkflowId(campaignId);
    try {
      const run = await temporal.workflow.start(campaignCreation, {
        taskQueue: temporalConfig.taskQueues.creation,
        // The server answers with the saga's first task, for this process's creation worker.
        requestEagerStart: eager,
        workflowId,
        args: [{ ...input, campaignId, reviewTaskQueue: temporalConfig.taskQueues.main }],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        // Operators find a campaign's workflows in the Temporal UI by name, id or organization (docs/operations.md).
        searchAttributes: campaignSearchAttributes({ campaignId, campaignName: input.body.name, organizationPublicId: input.organizationPublicId }),
      });
      eagerStart?.started(run.eagerlyStarted);
      return run;
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
    const live = await liveRun(temporal, workflowId);
    if (live) return live;
  }
  throw new Error(`campaign creation failed ${MAX_RUNS} times under one request; retry under a new Idempotency-Key`);
}

/** The run under `workflowId` if it is running or completed (the request's answer), else null. */
async function liveRun(temporal: Client, workflowId: string): Promise<CreationRun | null> {
  const handle = temporal.workflow.getHandle<typeof campaignCreation>(workflowId);
  try {
    const { status } = await handle.describe();
    return status.name === 'RUNNING' || status.name === 'COMPLETED' ? handle : null;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return null;
    throw err;
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
