/**
 * The MRC display viewability rule: at least half of the ad's pixels in the
 * viewport for one continuous second, in a visible page (IntersectionObserver and
 * the Page Visibility API). The watch starts only once the ad is rendered, and
 * fires `onViewable` at most once; `stop()` ends it.
 */
export const VIEWABLE_RATIO = 0.5;
export const VIEWABLE_MS = 1000;

export function watchViewability(element: Element, onViewable: () => void, log: (step: string) => void): () => void {
  let inView = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let done = false;
  const stop = () => {
    done = true;
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    observer.disconnect();
    document.removeEventListener('visibilitychange', update);
  };
  function update() {
    if (done) return;
    const counting = inView && document.visibilityState === 'visible';
    if (counting && timer === undefined) {
      log('in view: counting one second');
      timer = setTimeout(() => {
        log('viewable');
        stop();
        onViewable();
      }, VIEWABLE_MS);
    } else if (!counting && timer !== undefined) {
      // Continuous: leaving the view (or hiding the page) starts the second over.
      log(inView ? 'page hidden: count reset' : 'out of view: count reset');
      clearTimeout(timer);
      timer = undefined;
    }
  }
  const observer = new IntersectionObserver(
    (entries) => {
      for (const entry of entries) {
        inView = entry.isIntersecting && entry.intersectionRatio >= VIEWABLE_RATIO;
        log(`${Math.round(entry.intersectionRatio * 100)}% in view`);
      }
      update();
    },
    { threshold: [0, VIEWABLE_RATIO, 1] },
  );
  observer.observe(element);
  document.addEventListener('visibilitychange', update);
  return stop;
}
