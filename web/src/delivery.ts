/** Delivery status badges and issue lists (GET /v1/campaigns/{id}/delivery's shape, domain/serving/diagnostics.ts). */
import { count, dateTime, dollars, h } from './dom';

export type DeliveryStatus = 'delivering' | 'limited' | 'scheduled' | 'not_delivering' | 'completed';

export interface Issue {
  code: string;
  severity: 'blocking' | 'limiting' | 'info';
  message: string;
  action?: string;
  entity: { type: 'campaign' | 'ad_group' | 'ad'; id: string };
  details?: Record<string, string | number | string[]>;
}

export interface DeliveryView {
  delivery_status: DeliveryStatus;
  issues: Issue[];
  traffic: { evaluated: number; eligible: number; won: number; outbid: number; window_seconds: number };
}

/** The codes read from the last hour of auctions: their figures are shown beside the message. */
const TRAFFIC_CODES = new Set(['no_targeted_traffic', 'not_relevant', 'outbid', 'paced', 'frequency_capped']);

/** The delivery status as a badge; a campaign waiting for its start time says when it starts. */
export function deliveryBadge(status: DeliveryStatus, startTime?: number): HTMLElement {
  const label = status === 'scheduled' && startTime !== undefined ? `Scheduled: starts ${dateTime(startTime)}` : status.replace('_', ' ');
  return h('span', { class: `badge badge-${status}`, 'data-delivery': status }, label);
}

const figure = (name: string, value: string | number | string[]) => {
  if (Array.isArray(value)) return value.join(', ');
  if (typeof value === 'number') return name.endsWith('_micros') ? dollars(value) : count(value);
  return value;
};

function detailsOf(details: NonNullable<Issue['details']>): HTMLElement {
  return h(
    'dl',
    { class: 'figures' },
    ...Object.entries(details).flatMap(([name, value]) => [h('dt', {}, name.replace(/_micros$/, '').replace(/_/g, ' ')), h('dd', {}, figure(name, value))]),
  );
}

/** What an issue is about: the campaign, or an ad group or ad by name. */
function entityLabel(entity: Issue['entity'], names: ReadonlyMap<string, string>): string {
  if (entity.type === 'campaign') return 'Campaign';
  return `${entity.type === 'ad' ? 'Ad' : 'Ad group'}: ${names.get(entity.id) ?? entity.id}`;
}

/**
 * Issues with what to do about each; `names` labels ad groups and ads by id
 * (the entity an issue is about).
 */
export function issueList(issues: Issue[], names: ReadonlyMap<string, string>): HTMLElement {
  return h(
    'ul',
    { class: 'issues' },
    ...issues.map((issue) =>
      h(
        'li',
        { class: `issue issue-${issue.severity}`, 'data-issue': issue.code, 'data-entity': issue.entity.id },
        h('span', { class: `badge badge-${issue.severity}` }, issue.severity),
        ' ',
        h('span', { class: 'entity' }, entityLabel(issue.entity, names)),
        h('p', { class: 'message' }, issue.message),
        issue.action ? h('p', { class: 'action' }, h('strong', {}, 'What to do: '), issue.action) : null,
        issue.details && TRAFFIC_CODES.has(issue.code) ? detailsOf(issue.details) : null,
      ),
    ),
  );
}

/** The campaign page's delivery section: the status, the last hour's figures, and every issue. */
export function deliveryPanel(delivery: DeliveryView, names: ReadonlyMap<string, string>, startTime: number): HTMLElement {
  const t = delivery.traffic;
  return h(
    'section',
    { class: 'delivery', 'aria-labelledby': 'delivery-heading' },
    h('h2', { id: 'delivery-heading' }, 'Delivery'),
    h('p', {}, 'Status ', deliveryBadge(delivery.delivery_status, startTime)),
    h(
      'p',
      { class: 'meta' },
      `Last ${Math.round(t.window_seconds / 60)} minutes of auctions: considered in ${count(t.evaluated)} ad requests, eligible in ${count(t.eligible)}, won ${count(t.won)}, outbid ${count(t.outbid)}.`,
    ),
    delivery.issues.length ? issueList(delivery.issues, names) : h('p', {}, 'No issues: every ad can serve.'),
  );
}
