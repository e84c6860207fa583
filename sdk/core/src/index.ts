/**
 * The chat host's browser SDK (docs/sdk.md): `render` an auction answer into a
 * container, or `preload` one while the assistant's reply streams and render it once
 * the reply is complete. No framework, no dependency.
 */
import { render } from './render';
import type { AdAnswer, AdHandle, RenderOptions } from './types';

export { render };
export { VIEWABLE_MS, VIEWABLE_RATIO } from './viewability';
export type * from './types';

export interface Preloaded {
  /** Renders the answer once it has come (or reports why not); never rejects. */
  render(container: HTMLElement, options?: RenderOptions): Promise<AdHandle>;
}

/**
 * Starts asking for an ad now (the host's backend, with `prefetched: true`) and keeps the
 * answer for later. A request that fails or takes longer than `timeoutMs` renders nothing
 * and reports an `error`: it never blocks or breaks the chat.
 */
export function preload(request: () => Promise<AdAnswer>, { timeoutMs = 3000 }: { timeoutMs?: number } = {}): Preloaded {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const answer: Promise<AdAnswer | Error> = Promise.race([
    Promise.resolve()
      .then(request)
      .catch((err: unknown) => (err instanceof Error ? err : new Error(String(err)))),
    new Promise<Error>((resolve) => (timer = setTimeout(() => resolve(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs))),
  ]).finally(() => clearTimeout(timer));
  return {
    async render(container, options = {}) {
      const result = await answer;
      if (result instanceof Error) {
        if (options.debug) console.debug('[chat-ads] error', result);
        options.onEvent?.({ type: 'error', stage: 'request', message: result.message });
        return { destroy() {} };
      }
      return render(container, result, options);
    },
  };
}
