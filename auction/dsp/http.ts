import { Agent } from 'undici';
import { LRUCache } from 'lru-cache';
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

export interface HttpAnswer {
  status: number;
  body: string;
  latencyMs: number;
}

/** A failed call, as a non-bid reason. */
export class CallFailure extends Error {
  constructor(
    readonly reason: NonBidReason,
    detail: string,
    readonly latencyMs: number,
  ) {
    super(detail);
  }
}

/**
 * The moment calls are cut off: one timer shared by all the calls of an
 * auction that end at the same moment (its DSP bid calls), rather than one
 * timer per call. Each open call registers how to abort it; when the timer
 * fires, every call still open is aborted.
 */
export class Deadline {
  private readonly open = new Set<(err: Error) => void>();
  private readonly timer: NodeJS.Timeout;
  passed = false;
  constructor(readonly timeoutMs: number) {
    this.timer = setTimeout(() => {
      this.passed = true;
      for (const abort of this.open) abort(new Error(`deadline of ${timeoutMs} ms passed`));
      this.open.clear();
    }, timeoutMs);
  }
  /** Registers an open call's abort; returns its unregistration. */
  onPass(abort: (err: Error) => void): () => void {
    if (this.passed) {
      abort(new Error(`deadline of ${this.timeoutMs} ms passed`));
      return () => {};
    }
    this.open.add(abort);
    return () => this.open.delete(abort);
  }
  clear() {
    clearTimeout(this.timer);
    this.open.clear();
  }
}

/** Origin and path of each DSP URL, parsed once (a DSP's URLs are few and fixed). */
const targets = new LRUCache<string, { origin: string; path: string }>({ max: 10_000 });
function target(url: string) {
  let t = targets.get(url);
  if (!t) {
    const u = new URL(url);
    t = { origin: u.origin, path: `${u.pathname}${u.search}` };
    targets.set(url, t);
  }
  return t;
}

/**
 * One call through undici's dispatcher interface: the body is collected as
 * Buffers and decoded once. undici's `request()` would wrap each call in a
 * Readable stream, a promise-returning handler and an abort-signal listener:
 * three DSP calls per auction made that the largest share of the auction's
 * allocations, and so of its young-generation GC pauses (bench:auction,
 * BENCH_GC_TRACE=1).
 */
class JsonCall {
  private status = 0;
  private readonly chunks: Buffer[] = [];
  private settled = false;
  private abortRequest: ((err?: Error) => void) | null = null;
  private passedWith: Error | null = null;
  private unregister: (() => void) | null = null;
  constructor(
    deadline: Deadline,
    private readonly started: number,
    private readonly resolve: (answer: HttpAnswer) => void,
    private readonly reject: (err: unknown) => void,
  ) {
    // The deadline settles the call at once, even while it still waits for a connection
    // (undici hands out its abort only once the request is written to a socket).
    this.unregister = deadline.onPass((err) => {
      this.passedWith = err;
      this.abortRequest?.(err);
      this.onError(err);
    });
  }

  onConnect(abort: (err?: Error) => void) {
    if (this.passedWith) return abort(this.passedWith);
    this.abortRequest = abort;
  }
  onHeaders(statusCode: number) {
    this.status = statusCode;
    return true;
  }
  onData(chunk: Buffer) {
    this.chunks.push(chunk);
    return true;
  }
  onComplete() {
    if (this.settled) return;
    this.settled = true;
    this.unregister?.();
    this.resolve({ status: this.status, body: Buffer.concat(this.chunks).toString('utf8'), latencyMs: performance.now() - this.started });
  }
  onError(err: Error) {
    if (this.settled) return;
    this.settled = true;
    this.unregister?.();
    this.reject(err);
  }
}

/** POST `body`, cut off at `deadline` (a shared Deadline, or a timeout in ms for this call alone). */
export async function postJson(url: string, headers: Record<string, string>, body: string, deadline: Deadline | number): Promise<HttpAnswer> {
  const started = performance.now();
  const own = typeof deadline === 'number' ? new Deadline(deadline) : null;
  const cutoff = own ?? (deadline as Deadline);
  try {
    const { origin, path } = target(url);
    return await new Promise<HttpAnswer>((resolve, reject) => {
      dspAgent.dispatch({ origin, path, method: 'POST', headers, body }, new JsonCall(cutoff, started, resolve, reject));
    });
  } catch (err) {
    const latencyMs = performance.now() - started;
    const code = (err as { code?: string }).code;
    if (code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') throw new CallFailure('invalid_response', 'response body too large', latencyMs);
    // undici refused to build the request (e.g. a header value with a control character): nothing reached the DSP.
    if (code === 'UND_ERR_INVALID_ARG') throw new CallFailure('invalid_request', `not sent: ${(err as Error).message}`, latencyMs);
    if (cutoff.passed) throw new CallFailure('timeout', `no answer within ${cutoff.timeoutMs} ms`, latencyMs);
    throw new CallFailure('unreachable', (err as Error).message, latencyMs);
  } finally {
    own?.clear();
  }
}

export function parseJson(answer: HttpAnswer): unknown {
  try {
    return JSON.parse(answer.body);
  } catch {
    throw new CallFailure('invalid_response', 'body is not JSON', answer.latencyMs);
  }
}
