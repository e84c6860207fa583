/**
 * The lexicon's pattern language (domain/safety/classifier/patterns.ts): what a pattern
 * expands to, and that the expansions share their elements (the compiled
 * lexicon's size in every process that loads the classifier depends on it).
 */
import { compilePattern, Vocabulary } from '../../domain/safety/classifier/patterns';

describe('compilePattern', () => {
  it('expands alternatives and optional parts into word sequences over the vocabulary', () => {
    const vocabulary = new Vocabulary();
    const sequences = compilePattern('end (my life|it all) now?', vocabulary);
    const words = sequences.map((s) => s.map((el) => (el.kind === 'words' ? el.ids.map((id) => vocabulary.words[id]).join('|') : el.kind)).join(' '));
    expect(words).toEqual(['end my life now', 'end my life', 'end it all now', 'end it all']);
  });

  it('gives every sequence that holds a token the same element object, across patterns of one vocabulary', () => {
    const vocabulary = new Vocabulary();
    const [first, second] = compilePattern('kill|end (myself|me)', vocabulary);
    const [other] = compilePattern('kill|end ~2 $', vocabulary);
    expect(first[0]).toBe(second[0]);
    expect(other[0]).toBe(first[0]);
    expect(first[1]).not.toBe(second[1]);
    expect(other.slice(1)).toEqual([{ kind: 'gap', max: 2 }, { kind: 'end' }]);
  });

  it('shares nothing between vocabularies, whose word ids differ', () => {
    const a = new Vocabulary();
    const b = new Vocabulary();
    b.add('unrelated');
    const [fromA] = compilePattern('gamble', a);
    const [fromB] = compilePattern('gamble', b);
    expect(fromA[0]).not.toBe(fromB[0]);
    expect(fromA[0]).toEqual({ kind: 'words', ids: [1] });
    expect(fromB[0]).toEqual({ kind: 'words', ids: [2] });
  });

  it('refuses a pattern that does not start with a word', () => {
    expect(() => compilePattern('~2 alone', new Vocabulary())).toThrow('lexicon pattern must start with a word');
  });
});
