import { api, describeError } from '../api';
import { entityNames, renderTree, type AdGroupView, type AdView, type EditView } from '../creative';
import { issueList, type Issue } from '../delivery';
import { append, dateTime, dollars, h, notice, render } from '../dom';

interface StaffCampaign {
  id: string;
  name: string;
  status: string;
  review_status: string;
  organization_name: string;
  advertiser: { name: string; url: string };
  budget_micros: number;
  spent_micros: number;
  created_at: number;
  target_countries: string[];
  /** What waits for a verdict: the campaign, or edited creatives of an approved one. */
  awaiting: 'campaign' | 'creatives' | null;
  /** What would keep it from serving once approved (what approval resolves left out). */
  blocking_issues: Issue[];
  ad_groups: AdGroupView[];
}

type Verdict = 'approve' | 'reject' | 'block';

/** The two staff lists: the review queue (approve, or reject with a reason) and live campaigns (block with a reason). */
const LISTS = {
  review: {
    title: 'Review queue',
    endpoint: '/review/campaigns',
    order: 'oldest first',
    empty: 'waiting',
    reasonLabel: 'Reason (required to reject)',
    verdicts: [
      ['approve', 'Approve', 'primary'],
      ['reject', 'Reject', 'danger'],
    ] as [Verdict, string, string][],
  },
  live: {
    title: 'Live campaigns',
    endpoint: '/review/live',
    order: 'newest first',
    empty: 'live',
    reasonLabel: 'Reason (required to block)',
    verdicts: [['block', 'Block', 'danger']] as [Verdict, string, string][],
  },
};

/**
 * A reason field and verdict buttons; `decide` posts the verdict and returns
 * the outcome. Once decided, the controls are disabled and `holder` carries
 * `data-outcome`. Shows its own failure: never rejects.
 */
function verdictForm(
  holder: HTMLElement,
  id: string,
  reasonLabel: string,
  verdicts: [Verdict, string, string][],
  decide: (verdict: Verdict, reason: string) => Promise<string>,
): HTMLElement {
  const status = h('div', { 'aria-live': 'polite' });
  const reason = h('textarea', { id: `reason-${id}`, name: 'reason', rows: 2, maxlength: 500 });
  const run = async (verdict: Verdict) => {
    status.replaceChildren();
    try {
      const outcome = await decide(verdict, reason.value.trim());
      status.append(notice(`Done: ${outcome}`));
      form.querySelectorAll('button, textarea').forEach((el) => el.setAttribute('disabled', ''));
      holder.setAttribute('data-outcome', outcome);
    } catch (err) {
      status.append(notice(describeError(err), 'alert'));
    }
  };
  const form = h(
    'div',
    { class: 'verdict' },
    h('label', { for: `reason-${id}` }, reasonLabel),
    reason,
    h(
      'div',
      { class: 'actions' },
      ...verdicts.map(([verdict, label, style]) => h('button', { type: 'button', class: style, onclick: () => void run(verdict) }, label)),
    ),
    status,
  );
  return form;
}

/** Approve or reject one ad's edited creative (the revision shown); the approved version serves until then. */
function creativeVerdict(ad: AdView, edit: EditView): HTMLElement {
  const holder = h('div', { class: 'creative-verdict' });
  holder.append(
    verdictForm(
      holder,
      ad.id,
      `Reason (required to reject the edit of ${ad.name})`,
      [
        ['approve', 'Approve edit', 'primary'],
        ['reject', 'Reject edit', 'danger'],
      ],
      async (verdict, reason) => {
        const body = { revision: edit.revision, ...(reason ? { reason } : {}) };
        const result = await api<{ creative_review_status: string }>('POST', `/review/ads/${ad.id}/${verdict}`, body);
        return result.creative_review_status;
      },
    ),
  );
  return holder;
}

function campaignCard(c: StaffCampaign, list: (typeof LISTS)[keyof typeof LISTS]): HTMLElement {
  const article = h('article', { class: 'review', 'data-campaign-id': c.id, 'aria-labelledby': `title-${c.id}` });
  const decide = async (verdict: Verdict, reason: string) => {
    const result = await api<{ review_status?: string; lifecycle_state?: string }>('POST', `/review/campaigns/${c.id}/${verdict}`, reason ? { reason } : {});
    return result.review_status ?? result.lifecycle_state ?? verdict;
  };
  const countries = c.target_countries.join(', ') || 'all';
  append(article, [
    h('h2', { id: `title-${c.id}` }, c.name),
    h(
      'p',
      { class: 'meta' },
      `${c.organization_name} · ${c.status} · submitted ${dateTime(c.created_at)} · spent ${dollars(c.spent_micros)} of ${dollars(c.budget_micros)} · countries: ${countries}`,
    ),
    h('p', {}, 'Advertiser: ', c.advertiser.name || '(unnamed)', ' · ', h('span', { class: 'url' }, c.advertiser.url || '(no URL)')),
    c.awaiting === 'creatives'
      ? h('p', { class: 'awaiting' }, 'Approved campaign: edited creatives wait for review below, beside the versions that serve.')
      : null,
    renderTree(c.ad_groups, c.advertiser.name, c.review_status === 'approved', c.awaiting === 'creatives' ? creativeVerdict : undefined),
    // Beside the verdict: what would still keep it from serving. Approval stays possible (the advertiser can fix these later).
    c.blocking_issues.length
      ? h(
          'section',
          { class: 'blocking', 'aria-label': `Blocking issues of ${c.name}` },
          h('h3', {}, 'Would not serve as it stands'),
          issueList(c.blocking_issues, entityNames(c.ad_groups)),
        )
      : null,
    c.awaiting === 'creatives' ? null : verdictForm(article, c.id, list.reasonLabel, list.verdicts, decide),
  ]);
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
  render(
    main,
    h('h1', {}, list.title),
    h('p', {}, `${campaigns.length} campaign${campaigns.length === 1 ? '' : 's'} ${list.empty}, ${list.order}.`),
    ...campaigns.map((c) => campaignCard(c, list)),
  );
}
