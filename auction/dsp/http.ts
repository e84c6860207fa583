import { Agent, request } from 'undici';
import type { NonBidReason } from '../non-bid';

/**
 * Outgoing DSP calls: one undici Agent with pooled keep-alive connections per
 * origin, each call cut off at its own deadline (the connection is aborted, the
 * auction never waits past it).
 */
export const dspAgent = new Agent({
  keepAliveTimeout: 30_000,
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

const MAX_BODY_BYTES = 256 * 1024;

export async function postJson(url: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<HttpAnswer> {
  const started = performance.now();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const res = await request(url, { method: 'POST', headers, body, dispatcher: dspAgent, signal: controller.signal });
    let size = 0;
    const chunks: Buffer[] = [];
    for await (const chunk of res.body) {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) { controller.abort(); throw new CallFailure('invalid_response', 'response body too large', performance.now() - started); }
      chunks.push(chunk as Buffer);
    }
    return { status: res.statusCode, body: Buffer.concat(chunks).toString('utf8'), latencyMs: performance.now() - started };
  } catch (err) {
    if (err instanceof CallFailure) throw err;
    const latencyMs = performance.now() - started;
    if (controller.signal.aborted) throw new CallFailure('timeout', `no answer within ${timeoutMs} ms`, latencyMs);
    throw new CallFailure('unreachable', (err as Error).message, latencyMs);
  } finally {
    clearTimeout(timer);
  }
}

export function parseJson(answer: HttpAnswer): unknown {
  try { return JSON.parse(answer.body); } catch { throw new CallFailure('invalid_response', 'body is not JSON', answer.latencyMs); }
}
