import { api, describeError } from '../api';
import { drawChart, totalsOf, windowLabels, type InsightRow, type Metric } from '../chart';
import { entityNames, renderTree, type AdGroupView } from '../creative';
import { deliveryPanel, type DeliveryView } from '../delivery';
import { badge, count, dollars, h, notice, percent, render } from '../dom';
import { relevanceTester } from '../relevance';

interface CampaignView {
  campaign: {
    id: string;
    name: string;
    status: string;
    review_status: string;
    review_reason: string | null;
    lifecycle_state: string | null;
    lifecycle_reason: string | null;
    start_time: number;
    budget_micros: number;
    spent_micros: number;
    advertiser: { name: string; url: string };
  };
  ad_groups: AdGroupView[];
}

const ACTIONS = ['activate', 'pause', 'archive'] as const;

/** Every row of a report, following its cursor. */
async function loadRows(path: string, params: URLSearchParams): Promise<InsightRow[]> {
  const rows: InsightRow[] = [];
  for (;;) {
    const page = await api<{ data: InsightRow[]; has_more: boolean; last_id: string | null }>('GET', `${path}?${params}`);
    rows.push(...page.data);
    if (!page.has_more || !page.last_id) return rows;
    params.set('after', page.last_id);
  }
}

function select(id: string, label: string, options: [string, string][], value: string): [HTMLLabelElement, HTMLSelectElement] {
  const el = h('select', { id, name: id }, ...options.map(([v, text]) => h('option', { value: v, selected: v === value }, text)));
  return [h('label', { for: id }, label), el];
}

const GRANULARITIES: [string, string][] = [
  ['daily', 'Daily (last 30 days)'],
  ['hourly', 'Hourly (last 24 hours)'],
];
const METRICS: [string, string][] = [
  ['impressions', 'Impressions'],
  ['clicks', 'Clicks'],
  ['spend', 'Spend'],
  ['ctr', 'CTR'],
];
const SPLITS: [string, string][] = [
  ['', 'Nothing'],
  ['source', 'Source'],
  ['country', 'Country (one ad group, daily)'],
  ['device', 'Device (one ad group, daily)'],
];

/** The chart's controls: granularity, metric, scope (the campaign, or one ad group for country and device splits) and split. */
function chartControls(groups: AdGroupView[]) {
  const [granularityLabel, granularity] = select('granularity', 'Granularity', GRANULARITIES, 'daily');
  const [metricLabel, metric] = select('metric', 'Metric', METRICS, 'impressions');
  const scopes: [string, string][] = [['campaign', 'Whole campaign'], ...groups.map((g): [string, string] => [g.id, `Ad group: ${g.name}`])];
  const [scopeLabel, scope] = select('scope', 'Scope', scopes, 'campaign');
  const [splitLabel, split] = select('split', 'Split by', SPLITS, '');
  const controls = [granularityLabel, granularity, metricLabel, metric, scopeLabel, scope, splitLabel, split];
  const form = h('form', { class: 'controls', onsubmit: (e: Event) => e.preventDefault() }, ...controls);
  return { form, granularity, metric, scope, split };
}

/** The insights chart of the campaign (or one ad group): its section, and how to (re)load it. */
function insightsChart(main: HTMLElement, campaignId: string, groups: AdGroupView[]) {
  const { form, granularity, metric, scope, split } = chartControls(groups);
  const canvas = h('canvas', { role: 'img', 'aria-label': 'Insights chart' });
  const totals = h('dl', { class: 'totals', 'aria-label': 'Totals of the charted period' });
  const chartStatus = h('div', { 'aria-live': 'polite' });

  async function refresh(): Promise<void> {
    chartStatus.replaceChildren();
    const params = new URLSearchParams({ time_granularity: granularity.value, limit: '2000' });
    for (const field of ['impressions', 'clicks', 'spend', 'ctr']) params.append('fields[]', field);
    if (split.value) params.append('segments[]', split.value);
    const path = scope.value === 'campaign' ? `/campaigns/${campaignId}/insights` : `/ad-groups/${scope.value}/insights`;
    try {
      const rows = await loadRows(path, params);
      drawChart(canvas, rows, metric.value as Metric, split.value || null, windowLabels(granularity.value as 'daily' | 'hourly'));
      canvas.setAttribute('aria-label', `${metric.value} per ${granularity.value === 'daily' ? 'day' : 'hour'}${split.value ? ` by ${split.value}` : ''}`);
      const t = totalsOf(rows);
      totals.replaceChildren(
        ...[
          ['Impressions', 'impressions', count(t.impressions)],
          ['Clicks', 'clicks', count(t.clicks)],
          ['Spend', 'spend', dollars(Math.round(t.spend * 1_000_000))],
          ['CTR', 'ctr', percent(t.ctr)],
        ].flatMap(([label, key, value]) => [h('dt', {}, label), h('dd', { 'data-total': key }, value)]),
      );
      main.querySelector('.chart')?.setAttribute('data-loaded', 'true');
    } catch (err) {
      chartStatus.append(notice(describeError(err), 'alert'));
    }
  }
  for (const control of [granularity, metric, scope, split]) control.addEventListener('change', () => void refresh());

  const section = h(
    'section',
    { class: 'chart', 'aria-labelledby': 'insights-heading' },
    h('h2', { id: 'insights-heading' }, 'Insights'),
    form,
    chartStatus,
    h('div', { class: 'canvas-box' }, canvas),
    totals,
  );
  return { section, refresh };
}

/** Activate, pause, archive; Activate is off while the campaign is active (it would change nothing). */
function statusActions(main: HTMLElement, c: CampaignView['campaign'], actionStatus: HTMLElement): HTMLElement {
  /** Shows its own failure: never rejects. */
  const act = async (action: string) => {
    actionStatus.replaceChildren();
    try {
      await api('POST', `/campaigns/${c.id}/${action}`);
      await campaignPage(main, c.id);
      main.querySelector('.action-status')?.append(notice(`Done: ${action}`));
    } catch (err) {
      actionStatus.append(notice(describeError(err), 'alert'));
    }
  };
  return h(
    'div',
    { class: 'actions', role: 'group', 'aria-label': 'Campaign status actions' },
    ...ACTIONS.map((action) => {
      const off = action === 'activate' && c.status === 'active';
      return h(
        'button',
        { type: 'button', 'data-action': action, disabled: off, title: off ? 'The campaign is active already' : null, onclick: () => void act(action) },
        action[0].toUpperCase() + action.slice(1),
      );
    }),
  );
}

export async function campaignPage(main: HTMLElement, campaignId: string): Promise<void> {
  let view: CampaignView;
  let delivery: DeliveryView | Error;
  try {
    const id = encodeURIComponent(campaignId);
    // The delivery panel reads ClickHouse: when that fails, the rest of the page still shows.
    [view, delivery] = await Promise.all([
      api<CampaignView>('GET', `/campaigns/${id}`),
      api<DeliveryView>('GET', `/campaigns/${id}/delivery`).catch((err: Error) => err),
    ]);
  } catch (err) {
    render(main, h('h1', {}, 'Campaign'), notice(describeError(err), 'alert'), h('p', {}, h('a', { href: '/dashboard/' }, 'Back to campaigns')));
    return;
  }
  const c = view.campaign;
  const actionStatus = h('div', { 'aria-live': 'polite', class: 'action-status' });
  const chart = insightsChart(main, c.id, view.ad_groups);
  const spentRatio = c.budget_micros > 0 ? Math.min(1, c.spent_micros / c.budget_micros) : 0;
  render(
    main,
    h('p', {}, h('a', { href: '/dashboard/' }, '← All campaigns')),
    h('h1', {}, c.name),
    h('p', { class: 'meta' }, 'Status ', badge(c.status), ' · Review ', badge(c.review_status), c.review_reason ? ` · Reason: ${c.review_reason}` : ''),
    // Completed (end time or budget) or blocked by a reviewer: it never serves again.
    c.lifecycle_state
      ? h('p', { class: 'lifecycle' }, 'This campaign is ', badge(c.lifecycle_state), c.lifecycle_reason ? `: ${c.lifecycle_reason}` : '')
      : null,
    h(
      'p',
      {},
      h('label', { for: 'spend-meter' }, `Spend ${dollars(c.spent_micros)} of ${dollars(c.budget_micros)} budget `),
      h('meter', { id: 'spend-meter', min: 0, max: 1, value: spentRatio }, `${Math.round(spentRatio * 100)}%`),
    ),
    statusActions(main, c, actionStatus),
    actionStatus,
    delivery instanceof Error
      ? h('section', { class: 'delivery' }, h('h2', {}, 'Delivery'), notice(describeError(delivery), 'alert'))
      : deliveryPanel(delivery, entityNames(view.ad_groups), c.start_time),
    chart.section,
    h(
      'section',
      { 'aria-labelledby': 'tree-heading' },
      h('h2', { id: 'tree-heading' }, 'Ad groups and ads'),
      renderTree(view.ad_groups, c.advertiser.name, c.review_status === 'approved'),
    ),
    view.ad_groups.length ? relevanceTester(view.ad_groups) : null,
  );
  await chart.refresh();
}
