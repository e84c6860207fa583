/**
 * Chooses the rule that joins the lexicon and the learned scorer (MODEL_RULE
 * in domain/safety/classifier/classifier.ts) on probabilities the model gives conversations it was not
 * trained on: the training rows (train-model.ts) split into FOLDS, a model
 * trained on all folds but one scores the labelled conversations of that
 * one. Each rule is then measured over every labelled training conversation
 * at once. Held-out splits (the batch's holdout, the last probe) are never
 * read. The lexicon's scores are in-sample (it was tuned on these rows), so
 * the figures say what a rule costs in recall better than what it saves in
 * false blocks.
 *
 *   npx tsx domain/safety/training/cross-validate.ts
 */
import path from 'node:path';
import { SENSITIVE_CATEGORIES } from '../categories';
import { decideCategories, explainConversation, MODEL_RULE, type ModelRule } from '../classifier/classifier';
import { evaluate, LABELLED_SET_PATH, ORDINARY_SET_PATH, readLabelledSet, trainingRows, type LabelledConversation } from './evaluation';
import { modelFeatures, modelScores, trainModel } from '../classifier/model';
import { MODEL_TRAINING } from './train-model';

const FOLDS = 5;

/** Out-of-fold model probabilities and in-sample lexicon scores of each labelled training conversation. */
function outOfFold(labelled: LabelledConversation[], extra: LabelledConversation[]) {
  const rows = [...labelled, ...extra];
  const scored = new Map<string, { lexicon: number[]; model: Float64Array; concern: boolean }>();
  for (let fold = 0; fold < FOLDS; fold += 1) {
    const train = rows.filter((_, i) => i % FOLDS !== fold);
    const weights = trainModel(train, { ...MODEL_TRAINING, sources: [] });
    labelled.forEach((row, i) => {
      if (i % FOLDS !== fold) return;
      const model = modelScores(weights, modelFeatures(row.messages), new Float64Array(SENSITIVE_CATEGORIES.length));
      const { scores, matches } = explainConversation(row.messages);
      const concern = matches.some((m) => m.category === 'assistant_concern');
      scored.set(row.id, { lexicon: SENSITIVE_CATEGORIES.map((c) => scores[c]), model, concern });
    });
  }
  return scored;
}

function main() {
  const labelled = trainingRows(readLabelledSet());
  const extra = [...readLabelledSet(path.join(path.dirname(LABELLED_SET_PATH), 'model-training.jsonl')), ...trainingRows(readLabelledSet(ORDINARY_SET_PATH))];
  const scored = outOfFold(labelled, extra);
  // evaluate() hands the classifier messages: find their row, and its out-of-fold scores, by the array itself.
  const scoresOf = new Map(labelled.map((row) => [row.messages, scored.get(row.id)]));
  const classifyWith = (rule: ModelRule) => (messages: LabelledConversation['messages']) => {
    const s = scoresOf.get(messages);
    return s ? decideCategories(s.lexicon, s.model, rule, undefined, s.concern) : [];
  };
  const figure = (n: number) => n.toFixed(3);
  console.log(`${labelled.length} labelled training conversations, ${extra.length} training messages, ${FOLDS} folds`);
  const grid = {
    alone: [0.7, 0.8, 0.9],
    withCue: [0.4, 0.5, 0.6],
    vetoUnder: [0, 0.03, 0.05],
    never: [
      [0.7, 0.6],
      [0.6, 0.5],
      [0.5, 0.4],
      [0.4, 0.3],
      [0.3, 0.2],
    ],
  };
  for (const alone of grid.alone)
    for (const withCue of grid.withCue)
      for (const vetoUnder of grid.vetoUnder)
        for (const [neverAlone, neverWithCue] of grid.never) {
          const rule = { ...MODEL_RULE, alone, withCue, vetoUnder, neverAlone, neverWithCue };
          const e = evaluate(labelled, classifyWith(rule));
          console.log(
            `alone=${alone} withCue=${withCue} vetoUnder=${vetoUnder} never=${neverAlone}/${neverWithCue}: recall_never=${figure(e.recallNever)} recall_all=${figure(e.recallAll)} false_block=${figure(e.falseBlock)} (${e.falseBlocks.length}/${e.ordinary})`,
          );
        }
}

if (require.main === module) main();
