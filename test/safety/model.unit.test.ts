/**
 * The learned scorer (domain/safety/model.ts) and how the classifier joins it
 * to the lexicon. Sentences here are not in the labelled set.
 */
import { SENSITIVE_CATEGORIES } from '../../domain/safety/categories';
import { classifyConversation, explainConversation, MODEL_RULE, type ConversationMessage } from '../../domain/safety/classifier';
import { modelFeatures, modelScores, trainModel, type ModelWeights } from '../../domain/safety/model';
import MODEL_WEIGHTS from '../../domain/safety/model-weights.json';

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
      for (const c of e.categories.filter((k) => !e.lexiconCategories.includes(k)))
        expect([c, e.model[c] >= MODEL_RULE.alone || (e.scores[c] >= MODEL_RULE.minCueScore && e.model[c] >= MODEL_RULE.withCue)]).toEqual([c, true]);
    }
  });

  test('ages written as 12yo count as ages', () => {
    expect(classifyConversation(user('my 12yo was asked by an adult stranger online to send photos of himself')).categories).toContain('minors');
  });
});
