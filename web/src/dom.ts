/** Tiny DOM helpers: every text goes through textContent, never innerHTML. */
type Attrs = Record<string, string | number | boolean | null | undefined | ((event: Event) => void)>;
export type Child = Node | string | number | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.replace(/^on/, ''), value);
    else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, String(value));
  }
  append(el, children);
  return el;
}

export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

/** Replaces the main region's content and moves focus to its heading (screen readers hear the new page). */
export function render(main: HTMLElement, ...children: Child[]): void {
  main.replaceChildren();
  append(main, children);
  const heading = main.querySelector('h1');
  // Each page has its own title (what a screen reader and the tab strip say).
  if (heading?.textContent) document.title = `${heading.textContent} · Chat ads dashboard`;
  if (heading) {
    heading.setAttribute('tabindex', '-1');
    heading.focus();
  }
}

/**
 * Micros as dollars, by the rule every other surface uses (issue texts, adctl):
 * cents when whole, else every digit it takes (`$0.015`, never rounded up to
 * `$0.02`). The one import from the domain: a pure function, no I/O.
 */
export { formatUsd as dollars } from '../../domain/money';
export const percent = (ratio: number | null) => (ratio === null ? '–' : `${(ratio * 100).toFixed(2)}%`);
export const count = (n: number) => n.toLocaleString('en-US');
export const dateTime = (unix: number) => new Date(unix * 1000).toISOString().replace('T', ' ').slice(0, 16) + ' UTC';

/** A polite status line, or an alert for errors. */
export function notice(text: string, kind: 'status' | 'alert' = 'status'): HTMLElement {
  return h('p', { role: kind, class: kind === 'alert' ? 'error' : 'ok' }, text);
}

export function badge(text: string): HTMLElement {
  return h('span', { class: `badge badge-${text.replace(/[^a-z_]/g, '')}` }, text.replace('_', ' '));
}
