/** Element building: every text goes through textContent, never innerHTML (an ad's copy is untrusted). */
type Attrs = Record<string, string | number | boolean | undefined | EventListener>;
export type Child = Node | string | false | null | undefined;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const name in attrs) {
    const value = attrs[name];
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.slice(2), value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) if (child) el.append(child);
  return el;
}

/** Only http(s) URLs become links or images: an ad's `javascript:` URL must never run. */
export function safeUrl(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const { protocol } = new URL(value);
    return protocol === 'https:' || protocol === 'http:' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Resolves once the image has loaded or failed (true when it loaded). */
export const settled = (img: HTMLImageElement): Promise<boolean> =>
  img.complete
    ? Promise.resolve(img.naturalWidth > 0)
    : new Promise((resolve) => {
        img.addEventListener('load', () => resolve(true), { once: true });
        img.addEventListener('error', () => resolve(false), { once: true });
      });
