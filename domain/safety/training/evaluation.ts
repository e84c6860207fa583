/**
 * Quality of the classifier on the labelled set (test/fixtures/safety/conversations.jsonl),
 * shared by the floor test and bench:safety.
 *
 * Splits (see domain/safety/README.md for how the set was built):
 *   tuning   what the lexicon was tuned on (and the model trained on): the
 *            first batch's tuned part and probes 1 to 6
 *   holdout  a quarter of the first batch, never tuned on (written by the
 *            lexicon's author at the same time, so an optimistic figure)
 *   probe    the last probe: written after all tuning, measured once, never
 *            tuned on: the honest figure for phrasing the lexicon has not seen
 * reportSplits gives every probe on its own as well (probe1, probe2...).
 *
 *   recall_never  sensitive conversations with a `never` label for which a
 *                 `never` category was found (the auction is skipped entirely)
 *   recall_all    sensitive conversations for which any category was found
 *                 (no ad under the default policies)
 *   false_block   ordinary conversations for which any category was found
 *
 * Per category: recall of that exact category, and a confusion row (what was
 * found for the conversations carrying it).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CATEGORY_TABLE, isSensitiveCategory, SENSITIVE_CATEGORIES, type SensitiveCategory } from '../categories';
import type { ConversationMessage } from '../classifier/classifier';

export interface LabelledConversation {
  id: string;
  messages: ConversationMessage[];
  labels: SensitiveCategory[];
  note?: string;
  /** Never tuned on (nor trained on). */
  holdout?: boolean;
  /** Written after a lexicon version to measure it on unseen phrasing (1, 2, 3...). */
  probe?: number;
}

export interface LabelledSplits {
  tuning: LabelledConversation[];
  holdout: LabelledConversation[];
  /** The held-out probe (the highest probe number marked holdout). */
  probe: LabelledConversation[];
}

export function splitLabelledSet(set: readonly LabelledConversation[]): LabelledSplits {
  const heldOutProbes = set.filter((r) => r.holdout && r.probe !== undefined).map((r) => r.probe as number);
  const lastProbe = heldOutProbes.length > 0 ? Math.max(...heldOutProbes) : undefined;
  return {
    tuning: set.filter((r) => !r.holdout),
    holdout: set.filter((r) => r.holdout && r.probe === undefined),
    probe: set.filter((r) => r.holdout && r.probe !== undefined && r.probe === lastProbe),
  };
}

/** Every split for the bench: the first batch's tuned part, its holdout, then each probe. */
export function reportSplits(set: readonly LabelledConversation[]): Record<string, LabelledConversation[]> {
  const splits: Record<string, LabelledConversation[]> = {
    batch1: set.filter((r) => r.probe === undefined && !r.holdout),
    holdout: set.filter((r) => r.probe === undefined && r.holdout),
  };
  const probes = [...new Set(set.filter((r) => r.probe !== undefined).map((r) => r.probe as number))].sort((a, b) => a - b);
  for (const p of probes) splits[`probe${p}`] = set.filter((r) => r.probe === p);
  return splits;
}

/** What the model may be trained on: everything tuned on, never a held-out row. */
export function trainingRows(set: readonly LabelledConversation[]): LabelledConversation[] {
  return set.filter((r) => !r.holdout);
}

export const LABELLED_SET_PATH = path.join(__dirname, '../../../test/fixtures/safety/conversations.jsonl');
/**
 * Ordinary conversations only (issue 44): shopping, hobbies, work, family
 * logistics and their trap words ("bass", "shot", "pump", "kill a process").
 * Rows without `holdout` were tuned on; `holdout: true` rows are the fresh
 * probe for the ordinary false-block rate, written with them and never tuned on.
 */
export const ORDINARY_SET_PATH = path.join(__dirname, '../../../test/fixtures/safety/ordinary.jsonl');

export function readLabelledSet(file = LABELLED_SET_PATH): LabelledConversation[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, i) => {
      const row = JSON.parse(line) as LabelledConversation;
      for (const label of row.labels) if (!isSensitiveCategory(label)) throw new Error(`${file}:${i + 1}: unknown label ${String(label)}`);
      return row;
    });
}

export interface CategoryFigures {
  support: number;
  found: number;
  recall: number;
  /** Conversations without this label for which it was found. */
  extra: number;
  /** What was found for the conversations carrying this label ("none" when nothing). */
  confusion: Record<SensitiveCategory | 'none', number>;
}

export interface Evaluation {
  conversations: number;
  sensitive: number;
  ordinary: number;
  recallNever: number;
  recallAll: number;
  falseBlock: number;
  perCategory: Record<SensitiveCategory, CategoryFigures>;
  misses: { id: string; labels: SensitiveCategory[]; found: SensitiveCategory[] }[];
  falseBlocks: { id: string; found: SensitiveCategory[] }[];
}

const isNever = (c: SensitiveCategory) => CATEGORY_TABLE[c].defaultPolicy === 'never';
const ratio = (a: number, b: number) => (b === 0 ? 1 : a / b);

export function evaluate(set: readonly LabelledConversation[], classify: (messages: ConversationMessage[]) => readonly SensitiveCategory[]): Evaluation {
  const perCategory = Object.fromEntries(
    SENSITIVE_CATEGORIES.map((c) => [
      c,
      {
        support: 0,
        found: 0,
        recall: 0,
        extra: 0,
        confusion: Object.fromEntries([...SENSITIVE_CATEGORIES, 'none'].map((k) => [k, 0])) as CategoryFigures['confusion'],
      },
    ]),
  ) as Record<SensitiveCategory, CategoryFigures>;
  let never = 0;
  let neverFound = 0;
  let sensitive = 0;
  let sensitiveFound = 0;
  let ordinary = 0;
  let blocked = 0;
  const misses: Evaluation['misses'] = [];
  const falseBlocks: Evaluation['falseBlocks'] = [];
  for (const row of set) {
    const found = classify(row.messages);
    if (row.labels.length === 0) {
      ordinary += 1;
      if (found.length > 0) {
        blocked += 1;
        falseBlocks.push({ id: row.id, found: [...found] });
      }
    } else {
      sensitive += 1;
      if (found.length > 0) sensitiveFound += 1;
      if (row.labels.some(isNever)) {
        never += 1;
        if (found.some(isNever)) neverFound += 1;
      }
      if (row.labels.some((l) => !found.includes(l))) misses.push({ id: row.id, labels: row.labels, found: [...found] });
    }
    for (const c of SENSITIVE_CATEGORIES) {
      const figures = perCategory[c];
      if (row.labels.includes(c)) {
        figures.support += 1;
        if (found.includes(c)) figures.found += 1;
        if (found.length === 0) figures.confusion.none += 1;
        for (const f of found) figures.confusion[f] += 1;
      } else if (found.includes(c)) figures.extra += 1;
    }
  }
  for (const c of SENSITIVE_CATEGORIES) perCategory[c].recall = ratio(perCategory[c].found, perCategory[c].support);
  return {
    conversations: set.length,
    sensitive,
    ordinary,
    recallNever: ratio(neverFound, never),
    recallAll: ratio(sensitiveFound, sensitive),
    falseBlock: ordinary === 0 ? 0 : blocked / ordinary,
    perCategory,
    misses,
    falseBlocks,
  };
}
