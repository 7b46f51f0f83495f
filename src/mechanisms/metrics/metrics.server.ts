// GET /metrics on a listener of its own (METRICS_HOST:METRICS_PORT, 127.0.0.1 by default), never
// on the public port: behind a load balancer a scrape of the public address would reach a
// different node each time, and each node's (and each worker's) counts are its own. The worker,
// which has no HTTP server, serves the same. Nothing else answers here; no key is asked, so the
// port must stay where only Prometheus reaches it (docs/deploying.md, Metrics).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Metrics } from './metrics.ts';

export interface MetricsServer {
  readonly port: number;
  close(): Promise<void>;
}

export async function startMetricsServer(
  metrics: Metrics,
  where: { host: string; port: number },
  onError: (err: unknown) => void = () => undefined,
): Promise<MetricsServer> {
  metrics.collectProcessMetrics();
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: Prometheus scrapes /metrics\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (err: unknown) => {
        // The queue's query failed (the database is down): say so, and Prometheus marks the scrape failed.
        onError(err);
        res.writeHead(503, { 'content-type': 'text/plain' }).end('metrics unavailable\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(where.port, where.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
