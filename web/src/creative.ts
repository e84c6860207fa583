/** An ad as the chat host shows it: a sponsored card (image, title, body, call to action) or a poll. */
import { h } from './dom';

export interface AdView {
  id: string;
  name: string;
  status: string;
  creative_review_status: string;
  creative: { type: 'chat_card'; title: string; body: string; cta: string | null; image_path: string | null } | { type: 'poll'; title: string; options: string[] };
  landing_url: string;
}
export interface AdGroupView {
  id: string; name: string; status: string; creative_type: string; context_hints: string[]; max_bid_micros: number | null; ads: AdView[];
}

export function renderCreative(ad: AdView, advertiser: string): HTMLElement {
  const c = ad.creative;
  const sponsor = h('p', { class: 'sponsor' }, `Sponsored · ${advertiser}`);
  const landing = h('p', { class: 'landing' }, 'Landing URL: ', h('span', { class: 'url' }, ad.landing_url || '(none)'));
  if (c.type === 'poll') {
    return h('figure', { class: 'creative poll', 'aria-label': `Poll ad ${ad.name}` },
      sponsor,
      h('p', { class: 'title' }, c.title),
      h('ul', { class: 'options' }, ...c.options.map((option) => h('li', {}, option))),
      landing);
  }
  return h('figure', { class: 'creative card', 'aria-label': `Card ad ${ad.name}` },
    c.image_path ? h('img', { src: c.image_path, alt: `Image of the ad ${ad.name}`, loading: 'lazy' }) : h('div', { class: 'no-image' }, 'No image'),
    h('div', { class: 'card-text' },
      sponsor,
      h('p', { class: 'title' }, c.title),
      c.body ? h('p', { class: 'body' }, c.body) : null,
      c.cta ? h('span', { class: 'cta' }, c.cta) : null,
      landing));
}

export function renderTree(groups: AdGroupView[], advertiser: string): HTMLElement {
  return h('div', { class: 'tree' }, ...groups.map((g) =>
    h('section', { class: 'ad-group', 'aria-label': `Ad group ${g.name}` },
      h('h3', {}, `Ad group: ${g.name}`),
      h('p', { class: 'meta' }, `${g.status} · ${g.creative_type.replace('_', ' ')} · context hints: ${g.context_hints.join(', ') || '–'}`),
      h('div', { class: 'ads' }, ...g.ads.map((ad) => renderCreative(ad, advertiser))))));
}
