import { api, describeError } from '../api';
import { deliveryBadge, type DeliveryStatus } from '../delivery';
import { badge, count, dollars, h, notice, percent, render } from '../dom';

interface CampaignRow {
  id: string;
  name: string;
  status: string;
  lifecycle_state: string | null;
  review_status: string;
  budget_micros: number;
  spent_micros: number;
  delivery_status: DeliveryStatus;
  start_time: number;
  last_7_days: { impressions: number; clicks: number; ctr: number | null };
}

export async function overviewPage(main: HTMLElement): Promise<void> {
  let campaigns: CampaignRow[];
  let truncated: boolean;
  try {
    ({ campaigns, truncated } = await api<{ campaigns: CampaignRow[]; truncated: boolean }>('GET', '/campaigns'));
  } catch (err) {
    render(main, h('h1', {}, 'Campaigns'), notice(describeError(err), 'alert'));
    return;
  }
  const table = h(
    'table',
    { class: 'campaigns' },
    h(
      'caption',
      {},
      'Your campaigns, newest first. Delivery: whether each can serve now (its page says why). Impressions, clicks and CTR cover the last 7 days.',
    ),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ...['Campaign', 'Status', 'Delivery', 'Review', 'Spend / budget', 'Impressions', 'Clicks', 'CTR'].map((label) => h('th', { scope: 'col' }, label)),
      ),
    ),
    // data-label: on a phone each row becomes a card whose cells name themselves.
    h(
      'tbody',
      {},
      ...campaigns.map((c) =>
        h(
          'tr',
          { 'data-campaign-id': c.id },
          h('th', { scope: 'row' }, h('a', { href: `/dashboard/campaigns/${c.id}` }, c.name)),
          h('td', { 'data-label': 'Status' }, badge(c.status), c.lifecycle_state ? ' ' : null, c.lifecycle_state ? badge(c.lifecycle_state) : null),
          h('td', { 'data-label': 'Delivery' }, deliveryBadge(c.delivery_status, c.start_time)),
          h('td', { 'data-label': 'Review' }, badge(c.review_status)),
          h('td', { 'data-label': 'Spend / budget' }, `${dollars(c.spent_micros)} / ${dollars(c.budget_micros)}`),
          h('td', { class: 'num', 'data-label': 'Impressions (7 days)' }, count(c.last_7_days.impressions)),
          h('td', { class: 'num', 'data-label': 'Clicks (7 days)' }, count(c.last_7_days.clicks)),
          h('td', { class: 'num', 'data-label': 'CTR (7 days)' }, percent(c.last_7_days.ctr)),
        ),
      ),
    ),
  );
  render(
    main,
    h('h1', {}, 'Campaigns'),
    campaigns.length === 0 ? h('p', {}, 'No campaigns yet. Create one through the API (POST /v1/campaigns).') : h('div', { class: 'scroll' }, table),
    truncated ? h('p', {}, `Showing the newest ${campaigns.length} campaigns; list older ones through the API (GET /v1/campaigns).`) : null,
  );
}
