/**
 * `<ChatAd answer={...} />`: the browser core (@chat-ads/sdk) inside a React tree. The core
 * renders into the component's own element (its shadow root), so React never reconciles the
 * ad's nodes; a new answer replaces the ad, unmounting destroys it (and stops measuring).
 */
import { useEffect, useRef } from 'react';
import { render, type AdAnswer, type AdEvent, type RenderOptions } from '@chat-ads/sdk';

export type { AdAnswer, AdEvent, RenderOptions };

export interface ChatAdProps extends RenderOptions {
  /** The auction's answer (from the host's backend), or a promise of it (preloaded while the reply streamed). */
  answer: AdAnswer | Promise<AdAnswer> | null | undefined;
  className?: string;
}

export function ChatAd({ answer, className, onEvent, debug, theme, feedback }: ChatAdProps) {
  const ref = useRef<HTMLDivElement>(null);
  // The latest callback without re-rendering the ad when the host passes a new function each render.
  const events = useRef(onEvent);
  events.current = onEvent;
  useEffect(() => {
    const container = ref.current;
    if (!container || !answer) return;
    let handle: { destroy(): void } | undefined;
    let live = true;
    const options: RenderOptions = { debug, theme, feedback, onEvent: (event) => events.current?.(event) };
    Promise.resolve(answer).then(
      (a) => {
        if (live) handle = render(container, a, options);
      },
      (err: unknown) => live && events.current?.({ type: 'error', stage: 'request', message: err instanceof Error ? err.message : String(err) }),
    );
    return () => {
      live = false;
      handle?.destroy();
    };
  }, [answer, debug, theme, feedback]);
  return <div ref={ref} className={className} />;
}
