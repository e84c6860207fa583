/**
 * The learned scorer (domain/safety/classifier/model.ts), how the classifier joins it
 * to the lexicon, and the per-message caches. Sentences here are not in the labelled set.
 */
import { CATEGORY_TABLE, SENSITIVE_CATEGORIES } from '../../domain/safety/categories';
import {
  classifyConversation,
  clearMessageCaches,
  decideCategories,
  explainConversation,
  MODEL_RULE,
  type ConversationMessage,
} from '../../domain/safety/classifier/classifier';
import { MessageCache } from '../../domain/safety/classifier/message-cache';
import { modelFeatures, modelScores, trainModel, type ModelWeights } from '../../domain/safety/classifier/model';
import MODEL_WEIGHTS from '../../domain/safety/classifier/model-weights.json';

const user = (content: string): ConversationMessage[] => [
  { role: 'user', content },
  { role: 'assistant', content: 'Here are a few options.' },
];

describe('features', () => {
  test('user words, bigrams, negated words and assistant words, folded like the lexicon', () => {
    const features = modelFeatures([
      { role: 'user', content: "I'm NOT suicidal, I want running shoes" },
      { role: 'assistant', content: 'Try the Pegasus.' },
    ]);
    expect([...features]).toEqual(expect.arrayContaining(['n:suicidal', 'w:run', 'w:shoe', 'b:run_shoe', 'a:try', 'a:pegasus']));
    expect(features.has('w:suicidal')).toBe(false);
  });

  test('leetspeak and letter repeats fold before stemming', () => {
    expect([...modelFeatures([{ role: 'user', content: 'c0caine sooooo gooood' }])]).toEqual(expect.arrayContaining(['w:cocain', 'w:good']));
  });

  test('two function words make no bigram', () => {
    const features = modelFeatures([{ role: 'user', content: 'a gift for the office' }]);
    expect(features.has('b:for_the')).toBe(false);
    expect(features.has('b:gift_for')).toBe(true);
  });
});

describe('training', () => {
  const examples = [
    ...['i lost my rent at the casino', 'cant stop betting on games', 'my slots habit is ruining me'].map((content) => ({
      messages: [{ role: 'user' as const, content }],
      labels: ['gambling_problems' as const],
    })),
    ...['best running shoes', 'a tent for camping', 'which laptop for school'].map((content) => ({
      messages: [{ role: 'user' as const, content }],
      labels: [],
    })),
  ];
  const options = { epochs: 200, l2: 1e-3, learningRate: 1, minCount: 1, prune: 0.01, sources: ['test'] };

  test('learns a toy set and is deterministic', () => {
    const a = trainModel(examples, options);
    const b = trainModel(examples, options);
    expect(a).toEqual(b);
    const out = new Float64Array(SENSITIVE_CATEGORIES.length);
    const g = SENSITIVE_CATEGORIES.indexOf('gambling_problems');
    expect(modelScores(a, modelFeatures([{ role: 'user', content: 'lost it all at the casino again' }]), out)[g]).toBeGreaterThan(0.5);
    expect(modelScores(a, modelFeatures([{ role: 'user', content: 'new running shoes please' }]), out)[g]).toBeLessThan(0.5);
  });

  test('the committed weights name the classifier categories, in order, and say what they were trained on', () => {
    const weights = MODEL_WEIGHTS as ModelWeights;
    expect(weights.categories).toEqual([...SENSITIVE_CATEGORIES]);
    expect(weights.trainedOn.conversations).toBeGreaterThan(800);
    for (const vector of Object.values(weights.features).slice(0, 50)) expect(vector).toHaveLength(SENSITIVE_CATEGORIES.length);
  });
});

describe('joined to the lexicon', () => {
  test('the explanation gives the model and what the lexicon alone found', () => {
    const e = explainConversation(user('i want to kill myself'));
    expect(e.lexiconCategories).toEqual(['self_harm']);
    expect(e.categories).toContain('self_harm');
    expect(Object.keys(e.model)).toEqual([...SENSITIVE_CATEGORIES]);
  });

  test('a category the model finds has the lexicon cue or the model probability the rule asks for', () => {
    for (const text of ['my sister has not slept in days and talks nonstop about a mission from god', 'she keeps betting the grocery money on horses']) {
      const e = explainConversation(user(text));
      for (const c of e.categories.filter((k) => !e.lexiconCategories.includes(k))) {
        const never = CATEGORY_TABLE[c].defaultPolicy === 'never';
        const [alone, withCue] = never ? [MODEL_RULE.neverAlone, MODEL_RULE.neverWithCue] : [MODEL_RULE.alone, MODEL_RULE.withCue];
        expect([c, e.model[c] >= alone || (e.scores[c] >= MODEL_RULE.minCueScore && e.model[c] >= withCue)]).toEqual([c, true]);
      }
    }
  });

  test("the model's veto drops a block category one cue found and the model disputes, never a never category", () => {
    const at = (category: string, value: number) => SENSITIVE_CATEGORIES.map((c) => (c === category ? value : 0));
    const low = at('none', 0).map(() => MODEL_RULE.vetoUnder / 2);
    expect(decideCategories(at('violence_tragedy', 1), low, MODEL_RULE)).toEqual([]);
    expect(decideCategories(at('violence_tragedy', MODEL_RULE.vetoBelowScore), low, MODEL_RULE)).toEqual(['violence_tragedy']);
    expect(decideCategories(at('violence_tragedy', 1), at('violence_tragedy', MODEL_RULE.vetoUnder), MODEL_RULE)).toEqual(['violence_tragedy']);
    expect(decideCategories(at('self_harm', 1), low, MODEL_RULE)).toEqual(['self_harm']);
    expect(decideCategories(at('violence_tragedy', 1), low, { ...MODEL_RULE, enabled: false })).toEqual(['violence_tragedy']);
    // never categories are found by the model at lower probabilities than block ones.
    // With evidence a reader can see: the assistant's concern, or a cue of any category.
    const between = (MODEL_RULE.neverAlone + MODEL_RULE.alone) / 2;
    expect(decideCategories(at('none', 0), at('self_harm', between), MODEL_RULE, undefined, true)).toEqual(['self_harm']);
    expect(decideCategories(at('medical_emergency', MODEL_RULE.minEvidence), at('self_harm', between), MODEL_RULE)).toEqual(['self_harm']);
    expect(decideCategories(at('none', 0), at('politics', between), MODEL_RULE, undefined, true)).toEqual([]);
    // Without any, the model alone decides no `never` category, however sure; a `block` one still at `alone`.
    expect(decideCategories(at('none', 0), at('self_harm', 0.99), MODEL_RULE)).toEqual([]);
    expect(decideCategories(at('none', 0), at('politics', MODEL_RULE.alone), MODEL_RULE)).toEqual(['politics']);
  });

  test('ages written as 12yo count as ages', () => {
    expect(classifyConversation(user('my 12yo was asked by an adult stranger online to send photos of himself')).categories).toContain('minors');
  });
});

describe('per-message caches', () => {
  test('a message seen before gives the same categories, whatever its place in the window', () => {
    const filler = ['what laptop for college', 'The MacBook Air is a good pick.', 'and a backpack?', 'Try the Peak Design.', 'a bottle?', 'A Hydro Flask.'];
    const vote = (...rest: string[]): ConversationMessage[] =>
      ['who should i vote for in the senate race', 'I stay neutral.', ...rest].map((content, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content }));
    clearMessageCaches();
    expect(classifyConversation(vote(...filler)).categories).toEqual([]);
    expect(classifyConversation(vote()).categories).toContain('politics');
    clearMessageCaches();
    expect(classifyConversation(vote()).categories).toContain('politics');
    expect(explainConversation(vote()).categories).toEqual(classifyConversation(vote()).categories);
  });

  test('the cache is bounded by entries and by characters, least recently used first out', () => {
    const cache = new MessageCache<number>(2, 10, 6);
    cache.set('aaa', 1);
    cache.set('bbb', 2);
    expect(cache.get('aaa')).toBe(1);
    cache.set('ccc', 3);
    expect([cache.get('aaa'), cache.get('bbb'), cache.get('ccc')]).toEqual([1, undefined, 3]);
    cache.set('toolong', 4);
    expect(cache.get('toolong')).toBeUndefined();
    // Order now: aaa, ccc. Three entries and 12 characters: aaa goes.
    cache.set('dddddd', 5);
    expect([cache.size, cache.get('aaa'), cache.get('dddddd')]).toEqual([2, undefined, 5]);
    // ccc and dddddd hold 9 characters; 2 more would make 11: ccc goes, though 2 entries are allowed.
    cache.set('ee', 6);
    expect([cache.size, cache.get('ccc'), cache.get('ee')]).toEqual([2, undefined, 6]);
  });
});
