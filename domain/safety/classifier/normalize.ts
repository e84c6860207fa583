/**
 * Text to word keys, the same way for the lexicon (once, at load) and for a
 * conversation (every auction): lowercase, accents stripped (NFKD), apostrophes
 * dropped ("don't" -> "dont"), and an inflection-only stemmer so "killing",
 * "kills" and "killed" share the key "kill". Leetspeak and letter repeats are
 * not folded here: the classifier tries those variants only for words it does
 * not already know, so "4k" or "2nd" never turn into words by accident.
 */

/** Words whose regular stem would be wrong or would collide with another word. */
const STEM_EXCEPTIONS: ReadonlyMap<string, string> = new Map([
  ['die', 'die'],
  ['dies', 'die'],
  ['died', 'die'],
  ['dying', 'die'],
  ['lie', 'lie'],
  ['lies', 'lie'],
  ['lied', 'lie'],
  ['lying', 'lie'],
  ['tie', 'tie'],
  ['ties', 'tie'],
  ['tied', 'tie'],
  ['tying', 'tie'],
  // Not the drug, not a state of mind, not sex, not a robbery.
  ['heroine', 'heroine'],
  ['heroines', 'heroine'],
  ['depressing', 'depressing'],
  ['sexing', 'sexing'],
  ['mugged', 'mugged'],
  ['mugging', 'mugging'],
  ['stoned', 'stoned'],
  ['news', 'news'],
  ['bus', 'bus'],
  ['gas', 'gas'],
  ['yes', 'yes'],
  ['this', 'this'],
  ['its', 'its'],
  ['as', 'as'],
  ['is', 'is'],
  ['us', 'us'],
  ['was', 'was'],
  ['has', 'has'],
  ['does', 'does'],
]);

const isVowelAt = (w: string, i: number): boolean => {
  const c = w.charCodeAt(i);
  if (c === 97 || c === 101 || c === 105 || c === 111 || c === 117) return true;
  // y is a vowel after a consonant (Porter).
  return c === 121 && i > 0 && !isVowelAt(w, i - 1);
};

/** Porter's measure m: the number of vowel-consonant sequences in the word. */
function measure(w: string, end: number): number {
  let m = 0;
  let i = 0;
  while (i < end && !isVowelAt(w, i)) i += 1;
  while (i < end) {
    while (i < end && isVowelAt(w, i)) i += 1;
    if (i >= end) break;
    while (i < end && !isVowelAt(w, i)) i += 1;
    m += 1;
  }
  return m;
}

const hasVowel = (w: string, end: number): boolean => {
  for (let i = 0; i < end; i += 1) if (isVowelAt(w, i)) return true;
  return false;
};

/** Consonant-vowel-consonant ending, the last not w, x or y (Porter's *o). */
const endsCvc = (w: string, end: number): boolean => {
  if (end < 3) return false;
  const last = w.charCodeAt(end - 1);
  return !isVowelAt(w, end - 1) && isVowelAt(w, end - 2) && !isVowelAt(w, end - 3) && last !== 119 && last !== 120 && last !== 121;
};

/**
 * Porter's steps 1a-1c and 5a (plurals, -ed, -ing, final -e): inflections
 * only, so derived words ("suicidal", "addiction") stay distinct and the
 * lexicon lists the ones it means. Words of 3 letters or fewer are kept.
 */
export function stem(word: string): string {
  const exception = STEM_EXCEPTIONS.get(word);
  if (exception !== undefined) return exception;
  if (word.length <= 3) return word;
  let w = word;
  // 1a
  if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('ies')) w = w.slice(0, -2);
  else if (w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is')) w = w.slice(0, -1);
  // 1b
  let stripped = false;
  if (w.endsWith('eed')) {
    if (measure(w, w.length - 3) > 0) w = w.slice(0, -1);
  } else if (w.endsWith('ed') && w.length > 4 && hasVowel(w, w.length - 2)) {
    w = w.slice(0, -2);
    stripped = true;
  } else if (w.endsWith('ing') && w.length > 5 && hasVowel(w, w.length - 3)) {
    w = w.slice(0, -3);
    stripped = true;
  }
  if (stripped) {
    if (w.endsWith('at') || w.endsWith('bl') || w.endsWith('iz')) w += 'e';
    else {
      const n = w.length;
      const last = w.charCodeAt(n - 1);
      if (n >= 2 && last === w.charCodeAt(n - 2) && !isVowelAt(w, n - 1) && last !== 108 && last !== 115 && last !== 122) w = w.slice(0, -1);
      else if (measure(w, n) === 1 && endsCvc(w, n)) w += 'e';
    }
  }
  // 1c
  if (w.endsWith('y') && w.length > 3 && hasVowel(w, w.length - 1)) w = `${w.slice(0, -1)}i`;
  // 5a
  if (w.endsWith('e') && w.length > 3) {
    const m = measure(w, w.length - 1);
    if (m > 1 || (m === 1 && !endsCvc(w, w.length - 1))) w = w.slice(0, -1);
  }
  return w;
}

/** Lowercase and strip accents; NFKD only when the text is not plain ASCII. */
export function foldCase(text: string): string {
  const lower = text.toLowerCase();
  return /[^\x00-\x7f]/.test(lower)
    ? lower
        .normalize('NFKD')
        .replace(/[\u0300-\u036f]/g, '')
        .replace(/[\u2018\u2019\u02bc]/g, "'")
    : lower;
}

/** Letters and digits that leetspeak uses inside words. */
const LEET: Readonly<Record<string, string>> = { '0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '@': 'a', $: 's' };

/** "su1c1de" -> "suicide", "k1ll" -> "kill"; null when the word holds no leet character. */
export function unleet(word: string, oneAs: 'i' | 'l' = 'i'): string | null {
  let out = '';
  let changed = false;
  for (const ch of word) {
    const mapped = ch === '1' ? oneAs : LEET[ch];
    if (mapped !== undefined) {
      out += mapped;
      changed = true;
    } else out += ch;
  }
  return changed ? out : null;
}

/** Runs of three or more of one letter become two ("killlll" -> "kill", "sooo" -> "soo"); null when none. */
export function foldRepeats(word: string): string | null {
  if (!/(.)\1\1/.test(word)) return null;
  return word.replace(/(.)\1+/g, '$1$1');
}

/** Every double letter made single ("diie" -> "die"); null when none. */
export function undouble(word: string): string | null {
  if (!/(.)\1/.test(word)) return null;
  return word.replace(/(.)\1+/g, '$1');
}
