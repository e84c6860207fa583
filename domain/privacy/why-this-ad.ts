import { contentCategory } from '../understanding/content-taxonomy';

/**
 * The ad answer's `why_this_ad`, for the chat host to show: built only from
 * what the conversation is about (its IAB Content Taxonomy 3.0 categories, a
 * fixed vocabulary, never the conversation's own words, so no personal data
 * can be in it) and from how the request was allowed to be served (contextual
 * only: the consent signals and the publisher's teen setting). English.
 */
export const MAX_WHY_THIS_AD_CHARS = 300;

const NOT_PERSONALIZED = ' Not personalized: no profile or id of yours was used to choose it.';

/** `categories`: the conversation's, tier-1 best first, then confident tier-2 (auction/signals.ts). */
export function whyThisAd(categories: readonly string[], personalized: boolean): string {
  const top = categories.length ? contentCategory(categories[0]) : undefined;
  let topic = top?.name;
  if (top) {
    // A tier-2 category under the first names the topic more closely: "Running and Jogging (Sports)".
    for (let i = 1; i < categories.length; i += 1) {
      const c = contentCategory(categories[i]);
      if (c?.parent === top.id) {
        topic = `${c.name} (${top.name})`;
        break;
      }
    }
  }
  const why = topic ? `Shown because this conversation is about ${topic}.` : "Shown because of this conversation's topic.";
  return personalized ? why : why + NOT_PERSONALIZED;
}
