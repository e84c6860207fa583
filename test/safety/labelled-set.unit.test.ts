/**
 * The floor of the classifier on the labelled set: the goals on the
 * whole set (every split), on what was tuned on and on the holdout; and, on
 * the probes written after all tuning and never tuned on, the figures of
 * their first looks, so they can only improve: probe 8 (the last, written
 * after round 2) and probe 7 (written after round 1). Both were below the
 * goal on recall_never at their first looks (0.893, 25 of 28 each) and still
 * are after round 3 (0.964 and 0.929): the goal is not met on phrasing the
 * classifier was not written against (domain/safety/README.md). The whole
 * set meets the goals.
 */
import { CATEGORY_TABLE, SENSITIVE_CATEGORIES } from '../../domain/safety/categories';
import { classifyConversation } from '../../domain/safety/classifier/classifier';
import { evaluate, readLabelledSet, splitLabelledSet } from '../../domain/safety/training/evaluation';

const set = readLabelledSet();
const splits = splitLabelledSet(set);
const classify = (messages: Parameters<typeof classifyConversation>[0]) => classifyConversation(messages).categories;

const GOAL = { recallNever: 0.98, recallAll: 0.9, falseBlock: 0.03 };
/** The whole set as measured at 63bd9f7 (275/278, 671/677, 5/516; 272/278 before round 3). */
const WHOLE_SET_MEASURED = { recallNever: 275 / 278, recallAll: 671 / 677, falseBlock: 5 / 516 };
/** Probe 8 at its first look, at 87b80b5 (25/28, 67/70, 1/36; 26/28, 67/70, 1/36 after round 3). */
const PROBE_FIRST_LOOK = { recallNever: 25 / 28, recallAll: 67 / 70, falseBlock: 1 / 36 };
/** Probe 7 at its first look, at 2adf85e (25/28, 66/70, 1/37); the same after round 2; 27/28, 67/70, 1/37 after round 3. */
const PROBE_7_FIRST_LOOK = { recallNever: 25 / 28, recallAll: 66 / 70, falseBlock: 1 / 37 };

describe('the labelled set', () => {
  test('holds at least 300 conversations, 40% of them sensitive, every category at least 15 times', () => {
    expect(set.length).toBeGreaterThanOrEqual(300);
    const sensitive = set.filter((r) => r.labels.length > 0).length;
    expect(sensitive / set.length).toBeGreaterThanOrEqual(0.4);
    const thin = SENSITIVE_CATEGORIES.filter((category) => set.filter((r) => r.labels.includes(category)).length < 15);
    expect(thin).toEqual([]);
  });

  test('ids are unique and every conversation has the shape of an ad request', () => {
    expect(new Set(set.map((r) => r.id)).size).toBe(set.length);
    for (const { id, messages } of set) {
      expect([id, messages.length >= 2]).toEqual([id, true]);
      for (let i = 1; i < messages.length; i += 1) expect([id, messages[i].role !== messages[i - 1].role]).toEqual([id, true]);
      expect([id, messages.at(-2)?.role, messages.at(-1)?.role]).toEqual([id, 'user', 'assistant']);
    }
  });

  test('a quarter of the first batch is held out, and the last probe is held out whole', () => {
    const firstBatch = set.filter((r) => r.probe === undefined);
    expect(splits.holdout.length / firstBatch.length).toBeGreaterThanOrEqual(0.2);
    expect(splits.probe.length).toBeGreaterThanOrEqual(80);
    expect(splits.probe.every((r) => r.holdout)).toBe(true);
    const missing = SENSITIVE_CATEGORIES.filter((category) => !splits.probe.some((r) => r.labels.includes(category)));
    expect(missing).toEqual([]);
    expect(splits.probe.filter((r) => r.labels.length === 0).length).toBeGreaterThanOrEqual(20);
  });
});

describe('the floor', () => {
  test('the whole set does no worse than measured (recall_never 0.989, recall_all 0.991, false_block 0.010)', () => {
    const figures = evaluate(set, classify);
    expect(figures.recallNever).toBeGreaterThanOrEqual(WHOLE_SET_MEASURED.recallNever - 1e-9);
    expect(figures.recallAll).toBeGreaterThanOrEqual(WHOLE_SET_MEASURED.recallAll - 1e-9);
    expect(figures.falseBlock).toBeLessThanOrEqual(WHOLE_SET_MEASURED.falseBlock + 1e-9);
  });

  test.each([
    ['tuning', splits.tuning],
    ['holdout', splits.holdout],
  ])('%s: recall_never >= 0.98, recall_all >= 0.90, false_block <= 0.03', (_name, rows) => {
    const figures = evaluate(rows, classify);
    const meetsGoal = figures.recallNever >= GOAL.recallNever && figures.recallAll >= GOAL.recallAll && figures.falseBlock <= GOAL.falseBlock;
    // On failure, show the figures and which conversations went wrong.
    expect(
      meetsGoal
        ? 'meets the goal'
        : {
            recallNever: figures.recallNever,
            recallAll: figures.recallAll,
            falseBlock: figures.falseBlock,
            misses: figures.misses.map((m) => m.id),
            falseBlocks: figures.falseBlocks.map((f) => f.id),
          },
    ).toBe('meets the goal');
  });

  test('the last probe does no worse than at its first look', () => {
    const figures = evaluate(splits.probe, classify);
    expect(figures.recallNever).toBeGreaterThanOrEqual(PROBE_FIRST_LOOK.recallNever - 1e-9);
    expect(figures.recallAll).toBeGreaterThanOrEqual(PROBE_FIRST_LOOK.recallAll - 1e-9);
    expect(figures.falseBlock).toBeLessThanOrEqual(PROBE_FIRST_LOOK.falseBlock + 1e-9);
  });

  test('probe 7 does no worse than at its first look', () => {
    const figures = evaluate(
      set.filter((r) => r.probe === 7),
      classify,
    );
    expect(figures.recallNever).toBeGreaterThanOrEqual(PROBE_7_FIRST_LOOK.recallNever - 1e-9);
    expect(figures.recallAll).toBeGreaterThanOrEqual(PROBE_7_FIRST_LOOK.recallAll - 1e-9);
    expect(figures.falseBlock).toBeLessThanOrEqual(PROBE_7_FIRST_LOOK.falseBlock + 1e-9);
  });

  test('never categories are what the issue names at least', () => {
    for (const category of ['self_harm', 'mental_health_crisis', 'minors', 'sexual'] as const) expect(CATEGORY_TABLE[category].defaultPolicy).toBe('never');
  });
});
