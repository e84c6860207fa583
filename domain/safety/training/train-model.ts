/**
 * Trains the learned scorer (domain/safety/classifier/model.ts) and writes its weights to
 * domain/safety/classifier/model-weights.json. Run after changing the labelled set or the features:
 *
 *   npx tsx domain/safety/training/train-model.ts
 *
 * It trains on the labelled set's conversations that were tuned on (see
 * evaluation.ts: trainingRows), never on the holdout or on a probe still held
 * out, so those splits measure the model as they measure the lexicon; and on
 * test/fixtures/safety/model-training.jsonl, single user messages written by
 * topic for the model alone (more words per category, more ordinary chats);
 * and on the tuning part of test/fixtures/safety/ordinary.jsonl (ordinary
 * conversations; its held-out part is the fresh probe bench:safety reports).
 * Deterministic: the same set gives the same weights.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { format, resolveConfig } from 'prettier';
import { LABELLED_SET_PATH, ORDINARY_SET_PATH, readLabelledSet, trainingRows } from './evaluation';
import { trainModel } from '../classifier/model';

/** Chosen by 5-fold cross-validation over the training rows (README: the learned scorer). */
export const MODEL_TRAINING = { epochs: 400, l2: 3e-3, learningRate: 1, minCount: 2, prune: 0.02 };

async function main() {
  const extra = path.join(path.dirname(LABELLED_SET_PATH), 'model-training.jsonl');
  const rows = [...trainingRows(readLabelledSet()), ...readLabelledSet(extra), ...trainingRows(readLabelledSet(ORDINARY_SET_PATH))];
  const sources = [
    'test/fixtures/safety/conversations.jsonl (rows not held out)',
    'test/fixtures/safety/model-training.jsonl',
    'test/fixtures/safety/ordinary.jsonl (rows not held out)',
  ];
  const weights = trainModel(rows, { ...MODEL_TRAINING, sources });
  const file = path.join(__dirname, '..', 'classifier', 'model-weights.json');
  // Formatted as the tree's prettier config has it, so format:check passes.
  writeFileSync(file, await format(JSON.stringify(weights), { ...(await resolveConfig(file)), filepath: file }));
  console.log(`${file}: ${Object.keys(weights.features).length} features from ${rows.length} conversations (${weights.trainedOn.sensitive} sensitive)`);
}

if (require.main === module) void main();
