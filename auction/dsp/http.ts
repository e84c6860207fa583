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

export async function postJson(url: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<HttpAnswer> {
  const started = performance.now();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const res = await request(url, { method: 'POST', headers, body, dispatcher: dspAgent, signal: controller.signal });
    const text = await res.body.text();
    return { status: res.statusCode, body: text, latencyMs: performance.now() - started };
  } catch (err) {
    const latencyMs = performance.now() - started;
    if ((err as { code?: string }).code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') throw new CallFailure('invalid_response', 'response body too large', latencyMs);
    if (controller.signal.aborted) throw new CallFailure('timeout', `no answer within ${timeoutMs} ms`, latencyMs);
    throw new CallFailure('unreachable', (err as Error).message, latencyMs);
  } finally {
    clearTimeout(timer);
  }
}

export function parseJson(answer: HttpAnswer): unknown {
  try { return JSON.parse(answer.body); } catch { throw new CallFailure('invalid_response', 'body is not JSON', answer.latencyMs); }
}
