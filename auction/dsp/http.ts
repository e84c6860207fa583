import { Agent, request } from 'undici';
import type { NonBidReason } from '../non-bid';

const MAX_BODY_BYTES = 256 * 1024;

/**
 * Outgoing DSP calls: one undici Agent with pooled keep-alive connections per
 * origin, each call cut off at its own deadline (the connection is aborted, the
 * auction never waits past it).
 */
export const dspAgent = new Agent({
  keepAliveTimeout: 30_000,
  // A longer answer fails the call (UND_ERR_RES_EXCEEDED_MAX_SIZE) before it is buffered.
  maxResponseSize: MAX_BODY_BYTES,
  keepAliveMaxTimeout: 60_000,
  connections: 64,
  pipelining: 1,
  connect: { timeout: 2000 },
});

export interface HttpAnswer { status: number; body: string; latencyMs: number }

/** A failed call, as a non-bid reason. */
export class CallFailure extends Error {
  constructor(readonly reason: NonBidReason, detail: string, readonly latencyMs: number) { super(detail); }
}

/**
 * The moment calls are cut off: one timer and one abort signal, shared by all
 * the calls of an auction that end at the same moment (its DSP bid calls),
 * rather than one controller and one timer per call.
 */
export class Deadline {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  constructor(readonly timeoutMs: number) {
    this.timer = setTimeout(() => this.controller.abort(), timeoutMs);
  }
  get signal(): AbortSignal { return this.controller.signal; }
  get passed(): boolean { return this.controller.signal.aborted; }
  clear() { clearTimeout(this.timer); }
}

/** POST `body`, cut off at `deadline` (a shared Deadline, or a timeout in ms for this call alone). */
export async function postJson(url: string, headers: Record<string, string>, body: string, deadline: Deadline | number): Promise<HttpAnswer> {
  const started = performance.now();
  const own = typeof deadline === 'number' ? new Deadline(deadline) : null;
  const cutoff = own ?? (deadline as Deadline);
  try {
    const res = await request(url, { method: 'POST', headers, body, dispatcher: dspAgent, signal: cutoff.signal });
    const text = await res.body.text();
    return { status: res.statusCode, body: text, latencyMs: performance.now() - started };
  } catch (err) {
    const latencyMs = performance.now() - started;
    if ((err as { code?: string }).code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') throw new CallFailure('invalid_response', 'response body too large', latencyMs);
    if (cutoff.passed) throw new CallFailure('timeout', `no answer within ${cutoff.timeoutMs} ms`, latencyMs);
    throw new CallFailure('unreachable', (err as Error).message, latencyMs);
  } finally {
    own?.clear();
  }
}

export function parseJson(answer: HttpAnswer): unknown {
  try { return JSON.parse(answer.body); } catch { throw new CallFailure('invalid_response', 'body is not JSON', answer.latencyMs); }
}
