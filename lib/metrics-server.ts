import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

/**
 * A process's Prometheus metrics on an internal port of their own (loopback by
 * default), never on the public port that serves pixels and ad requests: they
 * tell outsiders traffic, DSP names and error rates. Answers `GET /metrics`
 * and 404 to anything else.
 */
export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

export function startMetricsServer(registry: Registry, address: { host: string; port: number }): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (err: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics failed: ${err.message}\n`),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, () => {
      const { port } = server.address() as AddressInfo;
      const host = address.host.includes(':') ? `[${address.host}]` : address.host;
      resolve({
        url: `http://${host}:${port}/metrics`,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
