/**
 * The Grafana dashboard and the alerting rules in docs/grafana/ (docs/operations.md)
 * name only metrics the processes serve, and every figure the processes serve
 * has a panel: built from the same registries the api, the auction and the
 * worker serve, so neither side can drift.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Pool } from 'pg';
import type { Registry } from 'prom-client';
import { createApiMetrics } from '../api/app';
import { createAuctionMetrics } from '../auction/metrics';
import { createWorkerMetrics } from '../jobs/metrics';
import type { Db } from '../lib/db';

const docs = path.join(__dirname, '..', 'docs', 'grafana');
const dashboard = JSON.parse(readFileSync(path.join(docs, 'adplatform-dashboard.json'), 'utf8')) as {
  panels: { type: string; title: string; targets?: { expr: string }[] }[];
};
const alerts = readFileSync(path.join(docs, 'alerts.yml'), 'utf8');

/** Not collected here: nothing below reads the stores they would query. */
const offline = { db: {} as Db, pool: {} as Pool };
const registries: Registry[] = [
  createApiMetrics(offline.db).registry,
  createAuctionMetrics({ size: () => 0, loadedAt: () => 0 }).registry,
  createWorkerMetrics(offline).registry,
];

/** Every series name the processes serve: histograms with their _bucket, _sum and _count. */
function served(): Map<string, string> {
  const names = new Map<string, string>();
  for (const registry of registries) {
    for (const metric of registry.getMetricsAsArray()) {
      const { name, type } = metric as unknown as { name: string; type: string };
      names.set(name, type);
      if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.set(`${name}${suffix}`, type);
    }
  }
  return names;
}

const METRIC = /\b(?:api|auction|worker)_[a-z0-9_]+\b/g;
const dashboardExprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
const namesIn = (text: string) => [...new Set(text.match(METRIC) ?? [])].sort();

test("every metric in the dashboard's PromQL is served by a process", () => {
  const names = served();
  const used = namesIn(dashboardExprs.join('\n'));
  expect(used.length).toBeGreaterThan(20);
  expect(used.filter((n) => !names.has(n))).toEqual([]);
});

test('every metric the alerting rules (and their runbooks) name is served by a process', () => {
  const names = served();
  const used = namesIn(alerts);
  expect(used).toEqual(
    expect.arrayContaining(['worker_event_pipeline_lag_seconds', 'worker_dead_letters', 'auction_dsp_errors_total', 'auction_requests_total']),
  );
  expect(used.filter((n) => !names.has(n))).toEqual([]);
  for (const alert of ['EventPipelineLagging', 'DeadLetters', 'DeliveryExportLagging', 'DspErrorRate', 'FillRateDrop'])
    expect(alerts).toContain(`alert: ${alert}`);
});

test("every figure of the platform's own (not Node's defaults) has a panel", () => {
  const used = new Set(namesIn(dashboardExprs.join('\n')).map((n) => n.replace(/_(bucket|sum|count)$/, '')));
  // Timing of every HTTP route and job, and sandbox traffic: in Prometheus for ad-hoc queries, no panel of their own.
  const noPanel = new Set(['api_http_request_duration_ms', 'worker_job_run_duration_ms', 'auction_sandbox_requests_total', 'api_dead_letters']);
  // A histogram's _bucket, _sum and _count are its own name's.
  const names = [...served()]
    .map(([name]) => name)
    .filter((name, _, all) => !/_(bucket|sum|count)$/.test(name) || !all.includes(name.replace(/_(bucket|sum|count)$/, '')));
  const missing = names.filter((name) => !/^(api|auction|worker)_(nodejs|process)_/.test(name) && !noPanel.has(name) && !used.has(name));
  expect(missing).toEqual([]);
});

test('every panel but the rows queries something', () => {
  for (const panel of dashboard.panels.filter((p) => p.type !== 'row'))
    expect({ title: panel.title, targets: panel.targets?.length ?? 0 }).not.toMatchObject({ targets: 0 });
});
