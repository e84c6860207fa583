/**
 * The relevance model (domain/relevance/score.ts) on the failure kinds the
 * old word-overlap matcher had, with the real distilled text model (installed
 * by scripts/bootstrap.sh); and headline truncation. The in-house bidder end to
 * end is in inhouse.test.ts.
 */
import { seededRandom } from '../../lib/ivf-index';
import { truncateHeadline } from '../../auction/inhouse/bidder';
import { NAMED_GROUPS, NEAREST_GROUPS, RelevanceIndex } from '../../auction/inhouse/relevance';
import { ConversationReader, hasPhrase, normalizeWords } from '../../domain/understanding/conversation';
import { NEW_WORDS_PER_READ, textEncoder } from '../../domain/understanding/encoder';
import { readFileSync } from 'node:fs';
import { relevanceProfile } from '../../domain/relevance/profile';
import { DEFAULT_MIN_RELEVANCE, featuresOf, needOf, RELEVANCE_MODEL, relevanceOf } from '../../domain/relevance/score';
import { BACKGROUND } from '../../domain/relevance/background';
import { dot } from '../../domain/understanding/encoder';
import { fitBackground } from '../../bench/relevance/background';

const encoder = textEncoder();
const reader = new ConversationReader(encoder);
const runningShoes = relevanceProfile(encoder, {
  hints: ['running', 'marathon', 'long run', 'running shoes'],
  copy: 'Shoes built for your next PR. Cushioned trainers tested on 20-mile long runs.',
});
const score = (...turns: string[]) =>
  relevanceOf(reader.read(turns.map((content, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content }))), runningShoes);

describe('relevance', () => {
  test('a conversation about the hint serves', () => {
    expect(
      score('What running shoes should I get for my first marathon?', 'Look for cushioned trainers with a stable heel for long runs.'),
    ).toBeGreaterThanOrEqual(DEFAULT_MIN_RELEVANCE);
  });
  test('a stem that collides does not: running an espresso shot', () => {
    expect(score('My espresso shots are running fast and taste sour', 'Grind finer so the shot takes 25 to 30 seconds.')).toBeLessThan(DEFAULT_MIN_RELEVANCE);
  });
  test('half of a two-word hint does not: "long" of "long run" beside an egg', () => {
    expect(score('How long do I boil an egg for a runny yolk?', 'About six minutes in boiling water, then an ice bath.')).toBeLessThan(DEFAULT_MIN_RELEVANCE);
  });
  test('an older topic does not keep serving after the conversation moved on', () => {
    expect(
      score(
        'Any tips for my marathon training?',
        'Build mileage slowly and keep one long run a week.',
        'Different question: which tax form do I need for freelance income?',
        'In the US that is usually a 1099-NEC, reported on Schedule C.',
      ),
    ).toBeLessThan(DEFAULT_MIN_RELEVANCE);
  });
  test("a hint's word in a question of fact does not: where the word marathon comes from", () => {
    expect(
      score(
        'where does the word marathon come from? it is for my history essay',
        'From the Battle of Marathon in 490 BC: a messenger is said to have run to Athens with news of the victory.',
      ),
    ).toBeLessThan(DEFAULT_MIN_RELEVANCE);
  });
  test('the need of a conversation: how the user asks, words that name an object property read as no word', () => {
    expect(needOf(['constructor', '__proto__', 'hasOwnProperty', 'toString'])).toBe(RELEVANCE_MODEL.need.bias);
    expect(needOf(['i', 'want', 'to', 'get', 'new', 'shoes'])).toBeGreaterThan(needOf(['where', 'does', 'the', 'word', 'come', 'from']));
  });
  test('a scorer is a probability', () => {
    const s = score('hello', 'hi there');
    expect(s).toBeGreaterThanOrEqual(0);
    expect(s).toBeLessThanOrEqual(1);
  });
});

describe('the background a group is read against', () => {
  test('is the one bench/relevance/train.ts --background fits from the current text table', () => {
    const fitted = fitBackground(encoder);
    expect(fitted.tableVersion).toBe(BACKGROUND.tableVersion);
    fitted.mean.forEach((x, j) => expect(BACKGROUND.mean[j]).toBeCloseTo(x, 4));
    fitted.variances.forEach((x, k) => expect(BACKGROUND.variances[k]).toBeCloseTo(x, 4));
  });

  test("a group's topic_z is the exchange's similarity to its topic against ordinary conversations' (their mean and spread)", () => {
    const ordinary = JSON.parse(readFileSync(`${__dirname}/../../bench/signals/conversations.json`, 'utf8')) as { m: string[] }[];
    for (const c of ordinary) for (const m of c.m) encoder.encode(m); // every word tokenized, as the fit does
    const similarities = ordinary.map((c) =>
      dot(reader.read(c.m.map((content, i) => ({ role: i % 2 ? 'assistant' : 'user', content }))).recent, runningShoes.topic),
    );
    const mean = similarities.reduce((a, b) => a + b, 0) / similarities.length;
    const spread = Math.sqrt(similarities.reduce((a, b) => a + (b - mean) ** 2, 0) / similarities.length);
    expect(runningShoes.topicMean).toBeCloseTo(mean, 3);
    // The spread from the background's principal directions, not every conversation: within a fifth.
    expect(runningShoes.topicSpread / spread).toBeGreaterThan(0.8);
    expect(runningShoes.topicSpread / spread).toBeLessThan(1.2);
    const f = featuresOf(reader.read([{ role: 'user', content: 'which shoes for my first marathon?' }]), runningShoes);
    expect(f.topic_z).toBeCloseTo((f.topic - runningShoes.topicMean) / runningShoes.topicSpread, 6);
    expect(f.topic_z).toBeGreaterThan(2);
  });
});

describe('phrases', () => {
  test('whole words only, the last word also plural, never across a clause', () => {
    const text = normalizeWords('my long runs are slow');
    expect(hasPhrase(text, 'long run')).toBe(true);
    expect(hasPhrase(normalizeWords('a longer run'), 'long run')).toBe(false);
    expect(hasPhrase('long | run', 'long run')).toBe(false);
  });
  test('a clause that turns away is kept apart', () => {
    const view = reader.read([
      { role: 'user', content: 'I hate running, what else burns calories?' },
      { role: 'assistant', content: 'Try cycling or swimming.' },
    ]);
    expect(view.negatedText).toContain('running');
    expect(view.recentText).not.toContain('running');
  });
});

describe('bounded work', () => {
  test('a conversation of made-up words tokenizes at most NEW_WORDS_PER_READ new words in the reading, the rest after it', async () => {
    const made = (i: number) => `zq${(i * 7919).toString(36)}vx`;
    const messages = Array.from({ length: 24 }, (_, m) => ({
      role: m % 2 ? 'assistant' : 'user',
      content: Array.from({ length: 150 }, (_, w) => made(m * 1000 + w)).join(' '),
    }));
    const before = encoder.rememberedWords;
    new ConversationReader(encoder).read(messages);
    expect(encoder.rememberedWords - before).toBeLessThanOrEqual(NEW_WORDS_PER_READ);
    // The skipped words are tokenized afterwards, a slice per turn of the event loop.
    for (let turn = 0; turn < 1000 && encoder.rememberedWords - before <= NEW_WORDS_PER_READ; turn++) await new Promise(setImmediate);
    expect(encoder.rememberedWords - before).toBeGreaterThan(NEW_WORDS_PER_READ);
  });
});

describe('retrieval', () => {
  test('the groups near the conversation and those a hint names are candidates, not the rest', () => {
    const groups = ['sourdough bread starter', 'mechanical keyboard switches', 'dog food for puppies', 'running shoes'].map((h) => ({
      relevance: relevanceProfile(encoder, { hints: [h], copy: h }),
      name: h,
    }));
    const index = new RelevanceIndex(groups);
    const view = reader.read([
      { role: 'user', content: 'my sourdough loaf is dense' },
      { role: 'assistant', content: 'Feed the starter more often.' },
    ]);
    expect(index.candidates(view).map((g) => g.name)).toContain('sourdough bread starter');
  });

  test('a hint more groups share than NAMED_GROUPS names none of them (retrieval finds them); a rarer hint still names its group', () => {
    const shoes = relevanceProfile(encoder, { hints: ['running shoes'], copy: 'Trainers for road running' });
    const grinder = relevanceProfile(encoder, { hints: ['burr grinder'], copy: 'Coffee gear' });
    // Far from the conversation by topic (a random-looking vector): only the hint's words can bring the grinder in.
    const far = Float32Array.from({ length: encoder.dims }, (_, j) => (j % 2 ? 1 : -1) / Math.sqrt(encoder.dims));
    const groups = [
      ...Array.from({ length: 3 * NAMED_GROUPS }, (_, i) => ({ relevance: { ...shoes, topic: far }, i })),
      { relevance: { ...grinder, topic: far }, i: -1 },
      ...Array.from({ length: 3000 }, (_, i) => ({
        relevance: { ...grinder, phrases: [], topic: far.map((x, j) => (j === i % encoder.dims ? -x : x)) },
        i: 10_000 + i,
      })),
    ];
    const index = new RelevanceIndex(groups);
    const view = reader.read([{ role: 'user', content: 'which running shoes go with a burr grinder habit' }]);
    const candidates = index.candidates(view).map((g) => g.i);
    expect(candidates).toContain(-1);
    expect(candidates.filter((i) => i >= 0 && i < 3 * NAMED_GROUPS).length).toBeLessThanOrEqual(NEAREST_GROUPS);
    expect(candidates.length).toBeLessThanOrEqual(NAMED_GROUPS + NEAREST_GROUPS);
  });

  test('among thousands of groups, the approximate nearest-neighbour index finds a planted near one', () => {
    // Unit vectors spread at random, and one group about what the conversation is about.
    const random = seededRandom(45);
    const randomUnit = () => {
      const v = Float32Array.from({ length: encoder.dims }, () => random() - 0.5);
      const norm = Math.hypot(...v);
      return v.map((x) => x / norm);
    };
    const planted = relevanceProfile(encoder, { hints: ['sourdough bread starter'], copy: 'Levain and rye flour for bakers' });
    const groups = Array.from({ length: 3000 }, (_, i) => ({ relevance: { ...planted, phrases: [], topic: i === 1789 ? planted.topic : randomUnit() }, i }));
    const index = new RelevanceIndex(groups);
    expect(index.nearestBytes).toBeGreaterThan(0); // approximate, not an exact scan
    const view = reader.read([{ role: 'user', content: 'my sourdough starter smells like acetone' }]);
    expect(index.nearest(view.recent, NEAREST_GROUPS)[0]).toBe(1789);
    expect(index.candidates(view).map((g) => g.i)).toContain(1789);
  });

  test("the candidates' scores are the same whether the search handed scoring their similarities or not", () => {
    const random = seededRandom(46);
    const profiles = ['trail running shoes', 'espresso grinder', 'sourdough starter', 'fly fishing reel'].map((hint) =>
      relevanceProfile(encoder, { hints: [hint], copy: `Everything for ${hint}` }),
    );
    const groups = Array.from({ length: 3000 }, (_, i) => {
      const base = profiles[i % profiles.length];
      const topic = base.topic.map((x) => x + 0.02 * (random() - 0.5));
      const norm = Math.hypot(...topic);
      return { relevance: { ...base, topic: topic.map((x) => x / norm) }, i };
    });
    const index = new RelevanceIndex(groups);
    expect(index.nearestBytes).toBeGreaterThan(0);
    const messages = [{ role: 'user', content: 'which reel for fly fishing on a small river' }];
    const searched = reader.read(messages);
    const candidates = index.candidates(searched);
    expect(candidates.length).toBeGreaterThan(0);
    const fresh = reader.read(messages.map((m) => ({ ...m })));
    expect(fresh).not.toBe(searched);
    for (const { relevance } of candidates) expect(featuresOf(searched, relevance)).toEqual(featuresOf(fresh, relevance));
  });
});

test('truncation keeps words whole when it can', () => {
  expect(truncateHeadline('Run faster with our shoes today', 20)).toBe('Run faster with our…');
  expect(truncateHeadline('Short', 30)).toBe('Short');
});
