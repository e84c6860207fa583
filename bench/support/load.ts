import http from 'node:http';
import { performance } from 'node:perf_hooks';

/**
 * Closed-loop HTTP load on loopback: `concurrency` keep-alive clients, each
 * sending its next request as soon as the previous one is answered, for
 * `durationS` after `warmupS` (warm-up requests are not measured).
 */
export interface LoadRequest { method: string; path: string; headers?: Record<string, string>; body?: string }
export interface LoadResult { ok: number; failed: number; perSecond: number; latencies: number[] }

export const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];

export async function closedLoopLoad(options: {
  port: number;
  concurrency: number;
  durationS: number;
  warmupS: number;
  next: () => LoadRequest;
  ok: (status: number) => boolean;
}): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency });
  const send = (r: LoadRequest) => new Promise<number>((resolve, reject) => {
    const headers = { ...r.headers, ...(r.body !== undefined ? { 'content-length': String(Buffer.byteLength(r.body)) } : {}) };
    const req = http.request({ host: '127.0.0.1', port: options.port, path: r.path, method: r.method, agent, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(r.body);
  });
  const latencies: number[] = [];
  let ok = 0;
  let failed = 0;
  const warmupEnd = performance.now() + options.warmupS * 1000;
  const end = warmupEnd + options.durationS * 1000;
  await Promise.all(Array.from({ length: options.concurrency }, async () => {
    while (performance.now() < end) {
      const request = options.next();
      const started = performance.now();
      const status = await send(request).catch(() => 0);
      const finished = performance.now();
      if (started < warmupEnd) continue;
      if (options.ok(status)) { ok += 1; latencies.push(finished - started); } else failed += 1;
    }
  }));
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { ok, failed, perSecond: ok / options.durationS, latencies };
}
