import { api, describeError } from '../api';
import { drawChart, totalsOf, windowLabels, type InsightRow, type Metric } from '../chart';
import { renderTree, type AdGroupView } from '../creative';
import { badge, count, dollars, h, notice, percent, render } from '../dom';

interface CampaignView {
  campaign: {
    id: string; name: string; status: string; review_status: string; review_reason: string | null;
    lifecycle_state: string | null; lifecycle_reason: string | null;
    budget_micros: number; spent_micros: number; advertiser: { name: string; url: string };
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

export async function campaignPage(main: HTMLElement, campaignId: string): Promise<void> {
  let view: CampaignView;
  try {
    view = await api<CampaignView>('GET', `/campaigns/${encodeURIComponent(campaignId)}`);
  } catch (err) {
    render(main, h('h1', {}, 'Campaign'), notice(describeError(err), 'alert'), h('p', {}, h('a', { href: '/dashboard/' }, 'Back to campaigns')));
    return;
  }
  const c = view.campaign;
  const actionStatus = h('div', { 'aria-live': 'polite', class: 'action-status' });
  /** Shows its own failure: never rejects. */
  const act = async (action: string) => {
    actionStatus.replaceChildren();
    try {
      await api('POST', `/campaigns/${c.id}/${action}`);
      await campaignPage(main, campaignId);
      main.querySelector('.action-status')?.append(notice(`Done: ${action}`));
    } catch (err) {
      actionStatus.append(notice(describeError(err), 'alert'));
    }
  };
  const actions = h('div', { class: 'actions', role: 'group', 'aria-label': 'Campaign status actions' },
    ...ACTIONS.map((action) => h('button', {
      type: 'button', 'data-action': action,
      onclick: () => void act(action),
    }, action[0].toUpperCase() + action.slice(1))));

  // Chart controls: granularity, metric, split, and the scope (the campaign, or one ad group for country/device splits).
  const [granularityLabel, granularity] = select('granularity', 'Granularity', [['daily', 'Daily (last 30 days)'], ['hourly', 'Hourly (last 24 hours)']], 'daily');
  const [metricLabel, metric] = select('metric', 'Metric', [['impressions', 'Impressions'], ['clicks', 'Clicks'], ['spend', 'Spend'], ['ctr', 'CTR']], 'impressions');
  const [scopeLabel, scope] = select('scope', 'Scope', [['campaign', 'Whole campaign'], ...view.ad_groups.map((g): [string, string] => [g.id, `Ad group: ${g.name}`])], 'campaign');
  const [splitLabel, split] = select('split', 'Split by', [['', 'Nothing'], ['source', 'Source'], ['country', 'Country (one ad group, daily)'], ['device', 'Device (one ad group, daily)']], '');
  const canvas = h('canvas', { role: 'img', 'aria-label': 'Insights chart' });
  const totals = h('dl', { class: 'totals', 'aria-label': 'Totals of the charted period' });
  const chartStatus = h('div', { 'aria-live': 'polite' });

  async function refresh(): Promise<void> {
    chartStatus.replaceChildren();
    const params = new URLSearchParams({ time_granularity: granularity.value, limit: '2000' });
    for (const field of ['impressions', 'clicks', 'spend', 'ctr']) params.append('fields[]', field);
    if (split.value) params.append('segments[]', split.value);
    const path = scope.value === 'campaign' ? `/campaigns/${c.id}/insights` : `/ad-groups/${scope.value}/insights`;
    try {
      const rows = await loadRows(path, params);
      drawChart(canvas, rows, metric.value as Metric, split.value || null, windowLabels(granularity.value as 'daily' | 'hourly'));
      canvas.setAttribute('aria-label', `${metric.value} per ${granularity.value === 'daily' ? 'day' : 'hour'}${split.value ? ` by ${split.value}` : ''}`);
      const t = totalsOf(rows);
      totals.replaceChildren(
        h('dt', {}, 'Impressions'), h('dd', { 'data-total': 'impressions' }, count(t.impressions)),
        h('dt', {}, 'Clicks'), h('dd', { 'data-total': 'clicks' }, count(t.clicks)),
        h('dt', {}, 'Spend'), h('dd', { 'data-total': 'spend' }, dollars(Math.round(t.spend * 1_000_000))),
        h('dt', {}, 'CTR'), h('dd', { 'data-total': 'ctr' }, percent(t.ctr)));
      main.querySelector('.chart')?.setAttribute('data-loaded', 'true');
    } catch (err) {
      chartStatus.append(notice(describeError(err), 'alert'));
    }
  }
  for (const control of [granularity, metric, scope, split]) control.addEventListener('change', () => { void refresh(); });

  const spentRatio = c.budget_micros > 0 ? Math.min(1, c.spent_micros / c.budget_micros) : 0;
  render(main,
    h('p', {}, h('a', { href: '/dashboard/' }, '← All campaigns')),
    h('h1', {}, c.name),
    h('p', { class: 'meta' }, 'Status ', badge(c.status), ' · Review ', badge(c.review_status),
      c.review_reason ? ` · Reason: ${c.review_reason}` : ''),
    // Completed (end time or budget) or blocked by a reviewer: it never serves again.
    c.lifecycle_state ? h('p', { class: 'lifecycle' }, 'This campaign is ', badge(c.lifecycle_state), c.lifecycle_reason ? `: ${c.lifecycle_reason}` : '') : null,
    h('p', {}, h('label', { for: 'spend-meter' }, `Spend ${dollars(c.spent_micros)} of ${dollars(c.budget_micros)} budget `),
      h('meter', { id: 'spend-meter', min: 0, max: 1, value: spentRatio }, `${Math.round(spentRatio * 100)}%`)),
    actions,
    actionStatus,
    h('section', { class: 'chart', 'aria-labelledby': 'insights-heading' },
      h('h2', { id: 'insights-heading' }, 'Insights'),
      h('form', { class: 'controls', onsubmit: (e: Event) => e.preventDefault() }, granularityLabel, granularity, metricLabel, metric, scopeLabel, scope, splitLabel, split),
      chartStatus,
      h('div', { class: 'canvas-box' }, canvas),
      totals),
    h('section', { 'aria-labelledby': 'tree-heading' },
      h('h2', { id: 'tree-heading' }, 'Ad groups and ads'),
      renderTree(view.ad_groups, c.advertiser.name)));
  await refresh();
}
