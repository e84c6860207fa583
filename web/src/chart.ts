/** Insights charts: Chart.js (tree-shaken), one line per segment value, plus the totals as text. */
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, LineController, LineElement, PointElement, Tooltip } from 'chart.js';

Chart.register(LineController, LineElement, PointElement, BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip);

export type Metric = 'impressions' | 'clicks' | 'spend' | 'ctr';
export interface InsightRow {
  start_time: number;
  readable_time?: string;
  impressions: number;
  clicks: number;
  spend: number;
  source?: string;
  country?: string;
  device?: string;
}

/** High-contrast colours (distinguishable for common colour-vision deficiencies). */
const COLOURS = ['#0b5cad', '#c2410c', '#15803d', '#7e22ce', '#b91c1c', '#0f766e', '#a16207', '#334155'];

export interface Totals {
  impressions: number;
  clicks: number;
  spend: number;
  ctr: number | null;
}

export function totalsOf(rows: InsightRow[]): Totals {
  const impressions = rows.reduce((sum, r) => sum + r.impressions, 0);
  const clicks = rows.reduce((sum, r) => sum + r.clicks, 0);
  // Spend is summed in micros so dollars never drift.
  const spend = rows.reduce((sum, r) => sum + Math.round(r.spend * 1_000_000), 0) / 1_000_000;
  return { impressions, clicks, spend, ctr: impressions === 0 ? null : clicks / impressions };
}

/**
 * The buckets of the insights default window (as the server cuts it): the
 * trailing 30 UTC days, or with hourly granularity the trailing 24 UTC hours.
 * Empty buckets are charted as zero rather than skipped.
 */
export function windowLabels(granularity: 'daily' | 'hourly', now = Date.now()): string[] {
  const size = granularity === 'daily' ? 86_400_000 : 3_600_000;
  const count = granularity === 'daily' ? 30 : 24;
  const end = Math.floor(now / size) * size + size;
  return Array.from({ length: count }, (_, i) => new Date(end - (count - i) * size).toISOString().slice(0, granularity === 'daily' ? 10 : 13));
}

/** One series per segment value (or one, "All") of `metric` over `window` (plus any bucket a row brings). */
export function seriesOf(rows: InsightRow[], metric: Metric, segment: string | null, window: string[]) {
  const labels = [...new Set([...window, ...rows.map((r) => r.readable_time ?? String(r.start_time))])].sort();
  const groups = new Map<string, Map<string, InsightRow[]>>();
  for (const row of rows) {
    const key = segment ? String((row as unknown as Record<string, string | number | null>)[segment] || 'unknown') : 'All';
    const label = row.readable_time ?? String(row.start_time);
    const byLabel = groups.get(key) ?? new Map<string, InsightRow[]>();
    byLabel.set(label, [...(byLabel.get(label) ?? []), row]);
    groups.set(key, byLabel);
  }
  const datasets = [...groups.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, byLabel], i) => ({
      label: key,
      data: labels.map((label) => {
        const t = totalsOf(byLabel.get(label) ?? []);
        return metric === 'ctr' ? (t.ctr === null ? null : t.ctr * 100) : t[metric];
      }),
      borderColor: COLOURS[i % COLOURS.length],
      backgroundColor: COLOURS[i % COLOURS.length],
      spanGaps: true,
    }));
  return { labels, datasets };
}

let current: Chart | null = null;

export function drawChart(canvas: HTMLCanvasElement, rows: InsightRow[], metric: Metric, segment: string | null, window: string[]): void {
  current?.destroy();
  const { labels, datasets } = seriesOf(rows, metric, segment, window);
  current = new Chart(canvas, {
    type: labels.length === 1 ? 'bar' : 'line',
    data: { labels, datasets },
    options: {
      responsive: true,
      maintainAspectRatio: false,
      animation: false,
      scales: { y: { beginAtZero: true, title: { display: true, text: metric === 'ctr' ? 'CTR (%)' : metric === 'spend' ? 'Spend (USD)' : metric } } },
      plugins: { legend: { display: datasets.length > 1 } },
    },
  });
}
