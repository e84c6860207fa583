/**
 * Whether an <img> has loaded real pixels: for a locator's `evaluate` (it runs
 * in the page, so it uses nothing from around it).
 */
export const imageLoaded = (img: any) =>
  img.complete
    ? img.naturalWidth > 0
    : new Promise((resolve) => {
        img.addEventListener('load', () => resolve(img.naturalWidth > 0));
        img.addEventListener('error', () => resolve(false));
      });
