/**
 * Metrics tell traffic, DSP names and error rates: each service serves them on
 * an internal port of its own (METRICS_PORT, AUCTION_METRICS_PORT; loopback
 * unless METRICS_HOST says otherwise), never on the public port of the pixels.
 */
import { startApiProcess, startAuctionProcess, type ServiceProcess } from '../dev/processes';
import type { config } from '../lib/config';
import { until } from './support/wait';

let services: ServiceProcess[] = [];
afterAll(async () => {
  await Promise.all(services.map((s) => s.stop()));
});

test('api and auction: /metrics is a 404 on the public port, Prometheus text on the loopback metrics port', async () => {
  services = await Promise.all([startApiProcess({ NODE_ENV: 'test' }), startAuctionProcess({ NODE_ENV: 'test' })]);
  for (const service of services) {
    const pub = await fetch(`${service.url}/metrics`);
    expect(pub.status).toBe(404);
    expect(((await pub.json()) as { error: { code: string } }).error.code).toBeDefined();
    await until(() => service.metricsUrl() !== null, 'the metrics line');
    const url = new URL(service.metricsUrl()!);
    expect(url.hostname).toBe('127.0.0.1');
    expect(url.port).not.toBe(new URL(service.url).port);
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/^# HELP (api|auction)_/m);
    expect((await fetch(new URL('/other', url))).status).toBe(404);
  }
});

test('the defaults: loopback, 9464 for the api, 9465 for the auction and 9466 for the worker', () => {
  const saved = { ...process.env };
  try {
    delete process.env.METRICS_HOST;
    delete process.env.METRICS_PORT;
    delete process.env.AUCTION_METRICS_PORT;
    delete process.env.WORKER_METRICS_PORT;
    jest.isolateModules(() => {
      const fresh = (require('../lib/config') as { config: typeof config }).config;
      expect(fresh.metrics).toEqual({ host: '127.0.0.1', apiPort: 9464, auctionPort: 9465, workerPort: 9466 });
    });
  } finally {
    process.env = saved;
  }
});
