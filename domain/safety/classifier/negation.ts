/**
 * The negation scope rule: a cue is discounted when a negator governs it in
 * its own clause, reached by walking back over at most a few "transparent"
 * words: "I'm not suicidal", "never been depressed", "not going to kill
 * myself", "no longer". Any other word, a clause end or "but" stops the walk,
 * so "I don't know why I want to die" and "I can't stop cutting" stay cues.
 * Cues that contain their own negation ("don't want to live") start with it
 * and are not affected.
 */

export const NEGATORS: readonly string[] = [
  'not',
  'no',
  'never',
  'nor',
  'neither',
  'without',
  'dont',
  'doesnt',
  'didnt',
  'isnt',
  'arent',
  'wasnt',
  'werent',
  'aint',
  'cant',
  'cannot',
  'couldnt',
  'wont',
  'wouldnt',
  'shouldnt',
  'havent',
  'hasnt',
  'hadnt',
];

/** Words that may stand between a negator and the cue it negates. */
export const NEGATION_TRANSPARENT: readonly string[] = [
  'i',
  'im',
  'am',
  'be',
  'been',
  'being',
  'feel',
  'feeling',
  'really',
  'actually',
  'at',
  'all',
  'even',
  'currently',
  'ever',
  'a',
  'an',
  'any',
  'so',
  'very',
  'too',
  'just',
  'going',
  'gonna',
  'to',
  'thinking',
  'about',
  'of',
  'or',
  'anything',
  'like',
  'remotely',
  'longer',
  'into',
  'much',
  'in',
  'looking',
  'for',
  'trying',
  'planning',
  'want',
  'wanting',
];

/** Words that end a clause for the walk, as punctuation does. */
export const CLAUSE_BREAKERS: readonly string[] = ['but', 'though', 'although', 'however', 'yet'];

export const MAX_NEGATION_DISTANCE = 5;

export type WordRole = 0 | 1 | 2 | 3;
export const ROLE_OTHER: WordRole = 0;
export const ROLE_NEGATOR: WordRole = 1;
export const ROLE_TRANSPARENT: WordRole = 2;
export const ROLE_BREAKER: WordRole = 3;

/**
 * Whether the cue starting at token `start` is negated. `roleOf(i)` gives a
 * token's role; `isClauseEnd(i)` whether it is punctuation.
 */
export function isNegatedAt(start: number, roleOf: (i: number) => WordRole, isClauseEnd: (i: number) => boolean): boolean {
  for (let i = start - 1, steps = 0; i >= 0 && steps < MAX_NEGATION_DISTANCE; i -= 1, steps += 1) {
    if (isClauseEnd(i)) return false;
    const role = roleOf(i);
    if (role === ROLE_NEGATOR) return true;
    if (role !== ROLE_TRANSPARENT) return false;
  }
  return false;
}
