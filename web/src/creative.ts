/**
 * An ad as the chat host shows it: a sponsored card (image, title, body, call
 * to action) or a poll, as it serves (its approved version), with an edit that
 * waits for review or was rejected beside it (api/dashboard/creatives.ts).
 */
import { count, h, type Child } from './dom';

export type CreativeView =
  { type: 'chat_card'; title: string; body: string; cta: string | null; image_path: string | null } | { type: 'poll'; title: string; options: string[] };

export interface PollResultsView {
  total_votes: number;
  options: { id: string; text: string; votes: number; percentage: number }[];
}

export interface EditView {
  status: 'pending' | 'rejected';
  reason: string | null;
  revision: number;
  creative: CreativeView;
  landing_url: string;
}

export interface AdView {
  id: string;
  name: string;
  status: string;
  creative_review_status: string;
  /** Whether `creative` was approved (it serves); false: it waits for its first approval. */
  approved: boolean;
  creative: CreativeView;
  landing_url: string;
  edit: EditView | null;
  results?: PollResultsView;
}
export interface AdGroupView {
  id: string;
  name: string;
  status: string;
  creative_type: string;
  context_hints: string[];
  max_bid_micros: number | null;
  ads: AdView[];
}

interface Shown {
  name: string;
  creative: CreativeView;
  landing: string;
  advertiser: string;
  results?: PollResultsView;
  edit?: boolean;
}

function pollOptions(options: string[], results?: PollResultsView): HTMLElement {
  if (!results) return h('ul', { class: 'options' }, ...options.map((option) => h('li', {}, option)));
  return h(
    'ul',
    { class: 'options', 'aria-label': `Results: ${count(results.total_votes)} votes` },
    ...results.options.map((o) =>
      h(
        'li',
        { 'data-option': o.id },
        h('span', {}, o.text),
        h('span', { class: 'votes' }, `${count(o.votes)} vote${o.votes === 1 ? '' : 's'} · ${o.percentage}%`),
      ),
    ),
  );
}

export function renderCreative({ name, creative: c, landing: landingUrl, advertiser, results, edit }: Shown): HTMLElement {
  const sponsor = h('p', { class: 'sponsor' }, `Sponsored · ${advertiser}`);
  const landing = h('p', { class: 'landing' }, 'Landing URL: ', h('span', { class: 'url' }, landingUrl || '(none)'));
  const kind = edit ? 'Edited ' : '';
  if (c.type === 'poll') {
    return h(
      'figure',
      { class: `creative poll${edit ? ' edit' : ''}`, 'aria-label': `${kind}Poll ad ${name}` },
      sponsor,
      h('p', { class: 'title' }, c.title),
      pollOptions(c.options, results),
      results ? h('p', { class: 'total' }, `${count(results.total_votes)} vote${results.total_votes === 1 ? '' : 's'} in total`) : null,
      landing,
    );
  }
  return h(
    'figure',
    { class: `creative card${edit ? ' edit' : ''}`, 'aria-label': `${kind}Card ad ${name}` },
    c.image_path ? h('img', { src: c.image_path, alt: `Image of the ad ${name}`, loading: 'lazy' }) : h('div', { class: 'no-image' }, 'No image'),
    h(
      'div',
      { class: 'card-text' },
      sponsor,
      h('p', { class: 'title' }, c.title),
      c.body ? h('p', { class: 'body' }, c.body) : null,
      c.cta ? h('span', { class: 'cta' }, c.cta) : null,
      landing,
    ),
  );
}

/** Under an edit: what the reviewer page puts there (its verdict buttons), if anything. */
export type EditActions = (ad: AdView, edit: EditView) => Child;

/** One ad: the version that serves and, beside it, its edit. `campaignApproved`: only then does "not approved yet" mean anything. */
function renderAd(ad: AdView, advertiser: string, campaignApproved: boolean, editActions?: EditActions): HTMLElement {
  const serving = renderCreative({ name: ad.name, creative: ad.creative, landing: ad.landing_url, advertiser, results: ad.results });
  const caption = (text: string) => h('p', { class: 'version' }, text);
  if (!ad.edit) {
    if (ad.approved || !campaignApproved) return h('div', { class: 'ad', 'data-ad-id': ad.id }, serving);
    return h(
      'div',
      { class: 'ad', 'data-ad-id': ad.id },
      h('div', {}, caption(`Not approved yet (${ad.creative_review_status}): nothing of it serves`), serving),
    );
  }
  const edit = ad.edit;
  return h(
    'div',
    { class: 'ad versions', 'data-ad-id': ad.id },
    h('div', { class: 'version-serving' }, caption('Serves now'), serving),
    h(
      'div',
      { class: 'version-edit' },
      caption(edit.status === 'pending' ? `Edit waiting for review (revision ${edit.revision})` : `Edit rejected${edit.reason ? `: ${edit.reason}` : ''}`),
      renderCreative({ name: ad.name, creative: edit.creative, landing: edit.landing_url, advertiser, edit: true }),
      editActions?.(ad, edit) ?? null,
    ),
  );
}

export function renderTree(groups: AdGroupView[], advertiser: string, campaignApproved: boolean, editActions?: EditActions): HTMLElement {
  return h(
    'div',
    { class: 'tree' },
    ...groups.map((g) =>
      h(
        'section',
        { class: 'ad-group', 'aria-label': `Ad group ${g.name}` },
        h('h3', {}, `Ad group: ${g.name}`),
        h('p', { class: 'meta' }, `${g.status} · ${g.creative_type.replace('_', ' ')} · context hints: ${g.context_hints.join(', ') || '–'}`),
        h('div', { class: 'ads' }, ...g.ads.map((ad) => renderAd(ad, advertiser, campaignApproved, editActions))),
      ),
    ),
  );
}

/** Ad groups and ads by id, for naming what an issue is about. */
export function entityNames(groups: AdGroupView[]): Map<string, string> {
  return new Map(groups.flatMap((g) => [[g.id, g.name] as [string, string], ...g.ads.map((ad): [string, string] => [ad.id, ad.name])]));
}
