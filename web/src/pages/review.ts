import { api, describeError } from '../api';
import { renderTree, type AdGroupView } from '../creative';
import { dateTime, dollars, h, notice, render } from '../dom';

interface QueuedCampaign {
  id: string; name: string; organization_name: string; advertiser: { name: string; url: string };
  budget_micros: number; created_at: number; target_countries: string[]; ad_groups: AdGroupView[];
}

/** The reviewer queue: campaigns in review, oldest first; approve, or reject with a reason. */
export async function reviewPage(main: HTMLElement): Promise<void> {
  let campaigns: QueuedCampaign[];
  try {
    // `?campaign=ID` or `?org=PUBLIC_ID` narrow the queue (links from elsewhere, e.g. the Temporal UI).
    const filter = new URLSearchParams([...new URLSearchParams(location.search)].filter(([key]) => key === 'campaign' || key === 'org'));
    ({ campaigns } = await api<{ campaigns: QueuedCampaign[] }>('GET', `/review/campaigns${filter.size ? `?${filter}` : ''}`));
  } catch (err) {
    render(main, h('h1', {}, 'Review queue'), notice(describeError(err), 'alert'));
    return;
  }
  const cards = campaigns.map((c) => {
    const status = h('div', { 'aria-live': 'polite' });
    const reasonId = `reason-${c.id}`;
    const reason = h('textarea', { id: reasonId, name: 'reason', rows: 2, maxlength: 500 });
    const decide = async (verdict: 'approve' | 'reject') => {
      status.replaceChildren();
      try {
        const result = await api<{ review_status: string }>('POST', `/review/campaigns/${c.id}/${verdict}`, reason.value.trim() ? { reason: reason.value.trim() } : {});
        status.append(notice(`${c.name}: ${result.review_status}`));
        article.querySelectorAll('button, textarea').forEach((el) => el.setAttribute('disabled', ''));
        article.setAttribute('data-review-status', result.review_status);
      } catch (err) {
        status.append(notice(describeError(err), 'alert'));
      }
    };
    const article = h('article', { class: 'review', 'data-campaign-id': c.id, 'aria-labelledby': `title-${c.id}` },
      h('h2', { id: `title-${c.id}` }, c.name),
      h('p', { class: 'meta' }, `${c.organization_name} · submitted ${dateTime(c.created_at)} · budget ${dollars(c.budget_micros)} · countries: ${c.target_countries.join(', ') || 'all'}`),
      h('p', {}, 'Advertiser: ', c.advertiser.name || '(unnamed)', ' · ', h('span', { class: 'url' }, c.advertiser.url || '(no URL)')),
      renderTree(c.ad_groups, c.advertiser.name),
      h('div', { class: 'verdict' },
        h('label', { for: reasonId }, 'Reason (required to reject)'),
        reason,
        h('div', { class: 'actions' },
          h('button', { type: 'button', class: 'primary', onclick: () => decide('approve') }, 'Approve'),
          h('button', { type: 'button', class: 'danger', onclick: () => decide('reject') }, 'Reject'))),
      // TODO(lifecycle): the "Block" action for live campaigns goes here once `blockCampaign`
      // (workflows/clients/campaign-lifecycle.ts) lands; see README, Dashboard.
      status);
    return article;
  });
  render(main,
    h('h1', {}, 'Review queue'),
    h('p', {}, `${campaigns.length} campaign${campaigns.length === 1 ? '' : 's'} waiting, oldest first.`),
    ...cards);
}
