import { api, describeError } from '../api';
import { renderTree, type AdGroupView } from '../creative';
import { dateTime, dollars, h, notice, render } from '../dom';

interface StaffCampaign {
  id: string; name: string; status: string; organization_name: string; advertiser: { name: string; url: string };
  budget_micros: number; spent_micros: number; created_at: number; target_countries: string[]; ad_groups: AdGroupView[];
}

type Verdict = 'approve' | 'reject' | 'block';

/** The two staff lists: the review queue (approve, or reject with a reason) and live campaigns (block with a reason). */
const LISTS = {
  review: {
    title: 'Review queue', endpoint: '/review/campaigns', order: 'oldest first', empty: 'waiting',
    reasonLabel: 'Reason (required to reject)', verdicts: [['approve', 'Approve', 'primary'], ['reject', 'Reject', 'danger']] as [Verdict, string, string][],
  },
  live: {
    title: 'Live campaigns', endpoint: '/review/live', order: 'newest first', empty: 'live',
    reasonLabel: 'Reason (required to block)', verdicts: [['block', 'Block', 'danger']] as [Verdict, string, string][],
  },
};

function campaignCard(c: StaffCampaign, list: (typeof LISTS)[keyof typeof LISTS]): HTMLElement {
  const status = h('div', { 'aria-live': 'polite' });
  const reasonId = `reason-${c.id}`;
  const reason = h('textarea', { id: reasonId, name: 'reason', rows: 2, maxlength: 500 });
  const article = h('article', { class: 'review', 'data-campaign-id': c.id, 'aria-labelledby': `title-${c.id}` });
  /** Shows its own failure: never rejects. */
  const decide = async (verdict: Verdict) => {
    status.replaceChildren();
    try {
      const body = reason.value.trim() ? { reason: reason.value.trim() } : {};
      const result = await api<{ review_status?: string; lifecycle_state?: string }>('POST', `/review/campaigns/${c.id}/${verdict}`, body);
      const outcome = result.review_status ?? result.lifecycle_state ?? verdict;
      status.append(notice(`${c.name}: ${outcome}`));
      article.querySelectorAll('button, textarea').forEach((el) => el.setAttribute('disabled', ''));
      article.setAttribute('data-outcome', outcome);
    } catch (err) {
      status.append(notice(describeError(err), 'alert'));
    }
  };
  article.append(
    h('h2', { id: `title-${c.id}` }, c.name),
    h('p', { class: 'meta' }, `${c.organization_name} · ${c.status} · submitted ${dateTime(c.created_at)} · spent ${dollars(c.spent_micros)} of ${dollars(c.budget_micros)} · countries: ${c.target_countries.join(', ') || 'all'}`),
    h('p', {}, 'Advertiser: ', c.advertiser.name || '(unnamed)', ' · ', h('span', { class: 'url' }, c.advertiser.url || '(no URL)')),
    renderTree(c.ad_groups, c.advertiser.name),
    h('div', { class: 'verdict' },
      h('label', { for: reasonId }, list.reasonLabel),
      reason,
      h('div', { class: 'actions' }, ...list.verdicts.map(([verdict, label, style]) =>
        h('button', { type: 'button', class: style, onclick: () => void decide(verdict) }, label)))),
    status);
  return article;
}

/** A staff list; `?campaign=ID` or `?org=PUBLIC_ID` narrow it (links from elsewhere, e.g. the Temporal UI). */
export async function staffPage(main: HTMLElement, which: keyof typeof LISTS): Promise<void> {
  const list = LISTS[which];
  let campaigns: StaffCampaign[];
  try {
    const filter = new URLSearchParams([...new URLSearchParams(location.search)].filter(([key]) => key === 'campaign' || key === 'org'));
    ({ campaigns } = await api<{ campaigns: StaffCampaign[] }>('GET', `${list.endpoint}${filter.size ? `?${filter}` : ''}`));
  } catch (err) {
    render(main, h('h1', {}, list.title), notice(describeError(err), 'alert'));
    return;
  }
  render(main,
    h('h1', {}, list.title),
    h('p', {}, `${campaigns.length} campaign${campaigns.length === 1 ? '' : 's'} ${list.empty}, ${list.order}.`),
    ...campaigns.map((c) => campaignCard(c, list)));
}
