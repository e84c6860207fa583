/**
 * Misspellings of the lexicon's key words ("sucidal", "gamblng", "anxeity"):
 * an optimal-string-alignment distance (an edit or a swap of neighbours costs
 * 1) bounded at 1, or 2 for key words of 10 letters or more (a second edit on a
 * short word reaches real words: "shopping" is two edits from "shooting"), against a short list
 * of key words, bucketed by first letter and length. Only words the lexicon
 * does not know reach it, and only words of 5 letters or more.
 */

export interface FuzzyKey {
  word: string;
  value: number;
}

const MIN_FUZZY_LENGTH = 5;
const maxDistanceFor = (length: number) => (length >= 10 ? 2 : 1);

export class FuzzyIndex {
  /** keys[firstLetterCode][length] -> keys of that first letter and length. */
  private readonly buckets = new Map<number, Map<number, FuzzyKey[]>>();
  private readonly rows = [new Uint8Array(0), new Uint8Array(0), new Uint8Array(0)];

  constructor(
    keys: readonly FuzzyKey[],
    private readonly stopWords: ReadonlySet<string> = new Set(),
  ) {
    for (const key of keys) {
      const first = key.word.charCodeAt(0);
      let byLength = this.buckets.get(first);
      if (!byLength) {
        byLength = new Map();
        this.buckets.set(first, byLength);
      }
      const list = byLength.get(key.word.length) ?? [];
      list.push(key);
      byLength.set(key.word.length, list);
    }
  }

  /** The value of the closest key within its distance bound, or -1. */
  lookup(word: string): number {
    if (word.length < MIN_FUZZY_LENGTH || this.stopWords.has(word)) return -1;
    const byLength = this.buckets.get(word.charCodeAt(0));
    if (!byLength) return -1;
    let best = -1;
    let bestDistance = 3;
    for (let length = word.length - 2; length <= word.length + 2; length += 1) {
      const keys = byLength.get(length);
      if (!keys) continue;
      const bound = maxDistanceFor(length);
      if (Math.abs(length - word.length) > bound) continue;
      for (const key of keys) {
        const d = this.distance(word, key.word, Math.min(bound, bestDistance - 1));
        if (d >= 0) {
          best = key.value;
          bestDistance = d;
        }
      }
    }
    return best;
  }

  /** Optimal string alignment distance when it is at most `bound`, else -1 (stops early). */
  private distance(a: string, b: string, bound: number): number {
    if (bound < 0) return -1;
    const n = b.length;
    if (this.rows[0].length < n + 1)
      this.rows.forEach((_, i) => {
        this.rows[i] = new Uint8Array(n + 8);
      });
    let prevPrev = this.rows[0];
    let prev = this.rows[1];
    let cur = this.rows[2];
    for (let j = 0; j <= n; j += 1) prev[j] = j;
    for (let i = 1; i <= a.length; i += 1) {
      cur[0] = i;
      let rowMin = i;
      const ac = a.charCodeAt(i - 1);
      for (let j = 1; j <= n; j += 1) {
        const bc = b.charCodeAt(j - 1);
        let v = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ac === bc ? 0 : 1));
        if (i > 1 && j > 1 && ac === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === bc) v = Math.min(v, prevPrev[j - 2] + 1);
        cur[j] = v;
        if (v < rowMin) rowMin = v;
      }
      if (rowMin > bound) return -1;
      const spare = prevPrev;
      prevPrev = prev;
      prev = cur;
      cur = spare;
    }
    const d = prev[n];
    return d <= bound ? d : -1;
  }
}
