import { h, safeUrl, settled, type Child } from './dom';
import { CSS } from './styles';
import type { Ad, AdAnswer, AdEvent, AdHandle, CarouselAd, Feedback, FeedbackReason, MessageAd, PollAd, PollResults, RenderOptions } from './types';
import { watchViewability } from './viewability';

const NOOP: AdHandle = { destroy() {} };

/** Polls voted in this page (and, where storage allows, earlier pages): no second vote, the results instead. */
const voted = new Set<string>();
const VOTED_KEY = 'chat-ads:voted:';
function hasVoted(auctionId: string): boolean {
  try {
    return voted.has(auctionId) || localStorage.getItem(VOTED_KEY + auctionId) === '1';
  } catch {
    return voted.has(auctionId);
  }
}
function markVoted(auctionId: string): void {
  voted.add(auctionId);
  try {
    localStorage.setItem(VOTED_KEY + auctionId, '1');
  } catch {
    // Storage refused (private mode, sandboxed frame): this page still remembers.
  }
}

async function postJson(url: string, body: unknown): Promise<Response> {
  const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body), credentials: 'omit' });
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  return res;
}

/** What each creative kind needs to render safely; anything else is an `error`, not a broken ad. */
function problem(ad: Ad): string | undefined {
  const str = (v: unknown) => typeof v === 'string' && v.length > 0;
  if (!safeUrl(ad.view_url) || !safeUrl(ad.feedback_url)) return 'view_url and feedback_url must be http(s) URLs';
  if (ad.format === 'sponsored_message') {
    if (!str(ad.headline) || !str(ad.advertiser) || !str(ad.cta_text) || !safeUrl(ad.url)) return 'a message needs headline, advertiser, cta_text and url';
    if (ad.placement === 'image' ? !safeUrl(ad.image_url) : ad.placement !== 'text') return 'an image placement needs image_url';
  } else if (ad.format === 'sponsored_carousel') {
    if (!Array.isArray(ad.items) || ad.items.length !== 3) return 'a carousel has exactly 3 tiles';
    if (ad.items.some((t) => !str(t.headline) || !safeUrl(t.url) || !safeUrl(t.image_url))) return 'every tile needs headline, url and image_url';
  } else if (ad.format === 'poll') {
    if (!str(ad.question) || !Array.isArray(ad.options) || !ad.options.length || !safeUrl(ad.vote_url) || !safeUrl(ad.results_url)) {
      return 'a poll needs question, options, vote_url and results_url';
    }
  } else return `unknown format ${String((ad as { format?: unknown }).format)}`;
  return undefined;
}

/**
 * Renders the auction's answer into `container` (inside a shadow root of its own: nothing
 * outside the container is touched), fires the view pixel once by the MRC rule, and reports
 * each step through `options.onEvent`. Never throws: a bad answer is an `error` event and
 * renders nothing; no fill renders nothing and reports `no_fill` with its reason.
 */
export function render(container: HTMLElement, answer: AdAnswer | null | undefined, options: RenderOptions = {}): AdHandle {
  const log = (...args: unknown[]) => {
    if (options.debug) console.debug('[chat-ads]', ...args);
  };
  const auctionId = answer?.auction_id;
  const emit = (event: AdEvent) => {
    log(event.type, event);
    try {
      options.onEvent?.(event);
    } catch (err) {
      log('onEvent threw', err);
    }
  };
  const fail = (stage: string, err: unknown) =>
    emit({ type: 'error', auction_id: auctionId, stage, message: err instanceof Error ? err.message : String(err) });

  if (!answer || typeof answer !== 'object') return (fail('answer', 'no answer'), NOOP);
  const ad = answer.ad;
  if (!ad) return (emit({ type: 'no_fill', auction_id: auctionId, no_fill_reason: answer.no_fill_reason ?? 'unknown' }), NOOP);
  const bad = problem(ad);
  if (bad) return (fail('answer', bad), NOOP);
  const id = answer.auction_id;
  emit({ type: 'fill', auction_id: id, format: ad.format, test: answer.test === true });

  let destroyed = false;
  let stopWatch = () => {};
  const link = (url: string, attrs: Record<string, string>, tile: number | undefined, ...children: Child[]) =>
    h(
      'a',
      { href: url, target: '_blank', rel: 'sponsored noopener', ...attrs, onclick: () => emit({ type: 'click', auction_id: id, url, tile }) },
      ...children,
    );

  const advertiser = (ad.format === 'sponsored_carousel' ? (ad.advertiser ?? ad.domain) : ad.advertiser) ?? '';

  const images: HTMLImageElement[] = [];
  const image = (src: string, cls: string, w: number, hgt: number) => {
    const img = h('img', { class: cls, src, alt: '', width: w, height: hgt, decoding: 'async' });
    images.push(img);
    return img;
  };

  let body: Child[];
  if (ad.format === 'sponsored_message') body = messageBody(ad, link, image);
  else if (ad.format === 'sponsored_carousel') body = carouselBody(ad, link, image);
  else body = pollBody(ad, id, link, emit, fail);

  const foot = options.feedback === false ? null : feedbackRow(ad, id, emit, fail);
  const theme = options.theme ?? 'auto';
  const why = typeof ad.why_this_ad === 'string' && ad.why_this_ad ? disclosure(ad.why_this_ad) : null;
  const root = h(
    'aside',
    { class: `ad ${theme}`, 'aria-label': `Sponsored${advertiser ? `: ${advertiser}` : ''}`, 'data-format': ad.format },
    header(advertiser, safeUrl(ad.logo_url), answer.test === true, why?.[0]),
    why?.[1],
    ...body,
    foot,
  );
  const host = h('div', { 'data-chat-ads': id });
  styled(host.attachShadow({ mode: 'open' })).append(root);
  container.append(host);

  // Rendered: in the page with its images settled. Only then may the view be measured.
  void Promise.all(images.map(settled)).then((loaded) => {
    if (destroyed) return;
    if (loaded.includes(false)) fail('image', 'an image did not load');
    emit({ type: 'rendered', auction_id: id, format: ad.format });
    stopWatch = watchViewability(
      root,
      () => {
        // An Image, not fetch: the pixel may redirect to a DSP's own pixel, which no CORS rule covers.
        const pixel = new Image();
        pixel.src = ad.view_url;
        emit({ type: 'viewable', auction_id: id });
      },
      (step) => log(step, id),
    );
  });

  return {
    destroy() {
      destroyed = true;
      stopWatch();
      host.remove();
    },
  };
}

/** A constructed stylesheet and CSSOM styles only: a page whose CSP forbids inline styles still renders the ad. */
function styled(shadow: ShadowRoot): ShadowRoot {
  if ('adoptedStyleSheets' in shadow) {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(CSS);
    shadow.adoptedStyleSheets = [sheet];
  } else (shadow as ShadowRoot).append(h('style', {}, CSS));
  return shadow;
}

/** The "Sponsored" label (with its "Why this ad?" button) and the advertiser's name, always shown; a sandbox answer's test marking. */
function header(advertiser: string, logo: string | undefined, test: boolean, why: HTMLElement | undefined): HTMLElement {
  return h(
    'div',
    { class: 'top' },
    // A logo that does not load leaves its box empty (no broken-image icon, no shift).
    logo &&
      h('img', { class: 'logo', src: logo, alt: '', width: 24, height: 24, onerror: (e: Event) => ((e.target as HTMLElement).style.visibility = 'hidden') }),
    h('span', { class: 'lbl' }, 'Sponsored'),
    why,
    test && h('span', { class: 'test', title: 'A sandbox test ad: never billed' }, 'Test ad'),
    h('span', { class: 'adv' }, advertiser),
  );
}

/**
 * The auction's `why_this_ad` behind a "Why this ad?" button (a disclosure: aria-expanded,
 * aria-controls), shown under the header when pressed. Text only, through h (never HTML).
 */
function disclosure(text: string): [HTMLButtonElement, HTMLElement] {
  const panel = h('p', { class: 'wta', id: 'wta', hidden: true }, text);
  const button = h(
    'button',
    {
      type: 'button',
      class: 'wtb',
      'aria-expanded': 'false',
      'aria-controls': 'wta',
      onclick: () => {
        panel.hidden = !panel.hidden;
        button.setAttribute('aria-expanded', String(!panel.hidden));
      },
    },
    'Why this ad?',
  );
  return [button, panel];
}

type LinkFn = (url: string, attrs: Record<string, string>, tile: number | undefined, ...children: Child[]) => HTMLAnchorElement;
type ImageFn = (src: string, cls: string, w: number, h: number) => HTMLImageElement;
type Emit = (event: AdEvent) => void;
type Fail = (stage: string, err: unknown) => void;

function messageBody(ad: MessageAd, link: LinkFn, image: ImageFn): Child[] {
  return [
    link(
      ad.url,
      { class: 'main' },
      undefined,
      ad.placement === 'image' && image(ad.image_url!, 'hero', 382, 200),
      h('h3', {}, ad.headline),
      ad.description && h('p', {}, ad.description),
      h('span', { class: 'cta' }, ad.cta_text),
    ),
  ];
}

function carouselBody(ad: CarouselAd, link: LinkFn, image: ImageFn): Child[] {
  // Order kept: tile 0 leads. Each tile's own click URL tells the tiles apart.
  return [
    h(
      'ul',
      { class: 'tiles', 'aria-label': 'Sponsored carousel' },
      ...ad.items.map((tile, i) =>
        h(
          'li',
          {},
          link(
            tile.url,
            { 'aria-label': `${tile.headline} (${i + 1} of 3)` },
            i,
            image(tile.image_url, '', 200, 200),
            h('h4', {}, tile.headline),
            tile.description && h('p', {}, tile.description),
          ),
        ),
      ),
    ),
  ];
}

async function fetchResults(url: string): Promise<PollResults['data']> {
  const res = await fetch(url, { credentials: 'omit' });
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  return ((await res.json()) as PollResults).data;
}

function pollBody(ad: PollAd, id: string, link: LinkFn, emit: Emit, fail: Fail): Child[] {
  const status = h('p', { role: 'status' });
  const cta = safeUrl(ad.cta_url);
  // The CTA's room is kept from the start (hidden, out of the tab order): showing it shifts nothing.
  const ctaLink = cta ? link(cta, { class: 'cta hide', 'aria-hidden': 'true', tabindex: '-1' }, undefined, 'Learn more') : null;
  let busy = false;
  const buttons = ad.options.map((option) =>
    h('button', { type: 'button', class: 'opt', 'data-option': option.id, onclick: () => void vote(option.id) }, h('span', {}, option.text)),
  );
  const show = (results: PollResults['data'], mine?: string) => {
    for (const button of buttons) {
      const option = results.options.find((o) => o.id === button.dataset.option);
      const pct = Math.round(option?.percentage ?? 0);
      button.setAttribute('aria-disabled', 'true');
      if (mine) button.setAttribute('aria-pressed', String(button.dataset.option === mine));
      const bar = h('span', { class: 'bar' });
      bar.style.width = `${pct}%`;
      button.replaceChildren(bar, h('span', {}, option?.text ?? ''), h('span', { class: 'pct' }, `${pct}%`));
    }
    status.textContent = `${results.total_votes} vote${results.total_votes === 1 ? '' : 's'}`;
    if (ctaLink) {
      ctaLink.classList.remove('hide');
      ctaLink.removeAttribute('aria-hidden');
      ctaLink.removeAttribute('tabindex');
    }
  };
  async function vote(optionId: string) {
    if (busy || hasVoted(id)) return;
    busy = true;
    try {
      const res = await postJson(ad.vote_url, { option_id: optionId });
      const results = ((await res.json()) as PollResults).data;
      markVoted(id);
      show(results, optionId);
      emit({ type: 'vote', auction_id: id, option_id: optionId, results });
    } catch (err) {
      // The poll stays as it was (the spec's client behaviour); the chat goes on.
      status.textContent = 'Your vote could not be recorded.';
      fail('vote', err);
    } finally {
      busy = false;
    }
  }
  // Voted already (a re-rendered conversation): the results, from the results URL, no second vote.
  if (hasVoted(id))
    fetchResults(ad.results_url).then(
      (r) => show(r),
      (err) => fail('results', err),
    );
  return [h('div', { role: 'group', 'aria-labelledby': 'q' }, h('h3', { id: 'q' }, ad.question), h('div', { class: 'opts' }, ...buttons), status), ctaLink];
}

/** A thumb drawn in SVG (no emoji font needed), pointing down for thumbs down. */
function thumb(down: boolean): SVGSVGElement {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  const path = document.createElementNS(SVG, 'path');
  path.setAttribute('d', 'M2 10h4v11H2zM8 10l4-8c1.5 0 2.5 1 2.5 2.5L14 9h6a2 2 0 0 1 2 2.3l-1.5 7.7A2.5 2.5 0 0 1 18 21H8z');
  if (down) path.setAttribute('transform', 'rotate(180 12 12)');
  svg.append(path);
  return svg;
}
const SVG = 'http://www.w3.org/2000/svg';

/** The reasons a thumbs down may give (the feedback tracker's fixed list), as the user reads them. */
const REASONS: [FeedbackReason, string][] = [
  ['not_relevant', 'Not relevant'],
  ['repetitive', 'Seen too often'],
  ['misleading', 'Misleading'],
  ['offensive', 'Offensive'],
  ['other', 'Other'],
];

/** Thumbs up is sent at once; thumbs down first asks why (one tap on a reason, or Skip), so the verdict and its reason go as one. */
function feedbackRow(ad: Ad, id: string, emit: Emit, fail: Fail): HTMLElement {
  const thanks = h('span', { role: 'status' });
  let sent = false;
  const button = (feedback: Feedback, label: string, onclick: () => void) =>
    h('button', { type: 'button', class: 'fb', 'aria-label': label, 'aria-pressed': 'false', onclick }, thumb(feedback === 'thumbs_down'));
  const up = button('thumbs_up', 'Good ad', () => void send('thumbs_up'));
  const down = button('thumbs_down', 'Not for me', ask);
  const why = h('div', { class: 'why', role: 'group', 'aria-label': 'Why not for you?', hidden: true });
  for (const [reason, label] of [...REASONS, [undefined, 'Skip'] as const])
    why.append(h('button', { type: 'button', class: 'fb', onclick: () => void send('thumbs_down', reason) }, label));
  function ask() {
    if (sent) return;
    down.setAttribute('aria-expanded', 'true');
    why.hidden = false;
    (why.firstChild as HTMLElement).focus();
  }
  async function send(feedback: Feedback, reason?: FeedbackReason) {
    if (sent) return;
    sent = true;
    why.hidden = true;
    (feedback === 'thumbs_up' ? up : down).setAttribute('aria-pressed', 'true');
    for (const b of [up, down]) b.setAttribute('aria-disabled', 'true');
    try {
      await postJson(ad.feedback_url, reason ? { feedback, reason } : { feedback });
      thanks.textContent = 'Thanks for the feedback';
      emit({ type: 'feedback', auction_id: id, feedback, ...(reason ? { reason } : {}) });
      (feedback === 'thumbs_up' ? up : down).focus();
    } catch (err) {
      fail('feedback', err);
    }
  }
  return h('div', { class: 'foot' }, h('span', {}, 'Rate this ad'), up, down, thanks, why);
}
