/**
 * Text relevance of an ad group's context hints to the conversation.
 *
 * Each hint is a phrase ("marathon training"). Messages and hints are
 * tokenized (lowercase letters/digits, stop words dropped) and stemmed with a
 * light suffix stripper (running/runs/runner -> run). A hint's score is the
 * share of its terms found in the conversation, where a term found only in
 * older messages counts half (recency: the last user and assistant messages
 * say what the conversation is about now). The group's relevance is the best
 * hint's score, in [0, 1].
 *
 * RELEVANCE_THRESHOLD = 0.5: at least half of some hint must be present in the
 * latest exchange (or all of it in older messages). Openers skip relevance.
 */
export const RELEVANCE_THRESHOLD = 0.5;

const STOP_WORDS = new Set(
  (
    'a an and are as at be but by for from has have how i in is it its me my of on or our so that the their them then there these they this to was we were what when where which who why will with you your ' +
    'can do does did just about into up out if not no yes im ive dont want need like get got some any all more most very'
  ).split(' '),
);

export function stem(word: string): string {
  let w = word;
  if (/(sses|xes|ches|shes|zes)$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('s') && !w.endsWith('ss') && w.length > 3) w = w.slice(0, -1);
  for (const suffix of ['ational', 'ization', 'ation', 'ness', 'ment', 'ing', 'er', 'ed']) {
    if (w.length - suffix.length >= 3 && w.endsWith(suffix)) {
      w = w.slice(0, -suffix.length);
      break;
    }
  }
  // runn -> run (doubled consonant left by -ing/-er/-ed)
  if (w.length >= 4 && w[w.length - 1] === w[w.length - 2] && !'aeiouls'.includes(w[w.length - 1])) w = w.slice(0, -1);
  return w;
}

export function terms(text: string): string[] {
  const out: string[] = [];
  for (const raw of text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .split(/[^\p{L}\p{N}]+/u)) {
    if (raw.length < 2 || STOP_WORDS.has(raw)) continue;
    out.push(stem(raw));
  }
  return out;
}

/** Conversation terms: the latest exchange weighs 1, older messages 0.5. */
export function conversationTerms(messages: readonly { content: string }[]): Map<string, number> {
  const weights = new Map<string, number>();
  messages.forEach((m, i) => {
    const weight = i >= messages.length - 2 ? 1 : 0.5;
    for (const t of terms(m.content)) weights.set(t, Math.max(weights.get(t) ?? 0, weight));
  });
  return weights;
}

/** Precomputed per ad group when the index loads. */
export type HintTerms = string[][];
export const hintTerms = (hints: readonly string[]): HintTerms => hints.map(terms).filter((t) => t.length > 0);

export function relevance(hints: HintTerms, conversation: Map<string, number>): number {
  let best = 0;
  for (const hint of hints) {
    let got = 0;
    for (const term of hint) got += conversation.get(term) ?? 0;
    best = Math.max(best, got / hint.length);
    if (best >= 1) break;
  }
  return best;
}
