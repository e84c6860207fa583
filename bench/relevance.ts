/**
 * Relevance on the labelled set (bench/relevance/README.md), no services:
 *  - conversations.json: every figure cross-validated (5 folds by conversation:
 *    each conversation scored by a model fitted without it), per failure kind too;
 *  - probes.json and probes-2.json, each written before any measurement of
 *    the model it first looked at and never tuned on: the shipped model's
 *    figures (domain/relevance/weights.json), apart;
 *  - cost: understanding a new exchange and scoring the ad groups retrieval
 *    finds, cold (the reader's message cache empty), per conversation, p50 and
 *    p99 in microseconds of CPU (process.cpuUsage: a shared machine's waits
 *    are not counted).
 * Figures (bench/relevance/dataset.ts, figuresOf): precision and recall of the
 * (conversation, ad group) pairs at or above the bar, top1 (the best-scoring
 * group is a relevant one, among conversations that have one), served (it is
 * relevant and reaches the bar), false_serve (a group reaches the bar where
 * nothing fits).
 *
 *   npm run bench:relevance
 */
import { RelevanceIndex } from '../auction/inhouse/relevance';
import { ConversationReader } from '../domain/understanding/conversation';
import { textEncoder } from '../domain/understanding/encoder';
import { DEFAULT_MIN_RELEVANCE, relevanceOf } from '../domain/relevance/score';
import { figuresOf, needInputsOf, pairsOf, profilesOf, readJson, type Figures, type LabelledConversation, type LabelledGroup } from './relevance/dataset';
import { crossValidated } from './relevance/train';

const encoder = textEncoder();
const groups = readJson<LabelledGroup[]>('ad-groups.json');
const conversations = readJson<LabelledConversation[]>('conversations.json');
const probes = readJson<LabelledConversation[]>('probes.json');
const probes2 = readJson<LabelledConversation[]>('probes-2.json');
const line = (f: Figures) =>
  Object.entries(f)
    .map(([k, v]) => `${k}=${Number.isInteger(v) ? v : v.toFixed(3)}`)
    .join(' ');

const pairs = pairsOf(encoder, groups, conversations);
const { scored } = crossValidated(encoder, pairs, needInputsOf(encoder, conversations));
const labelled = figuresOf(scored, DEFAULT_MIN_RELEVANCE);
console.log(`labelled set, cross-validated: ${line(labelled)}`);
const kinds = [...new Set(conversations.flatMap((c) => c.kind))].sort();
for (const kind of kinds) {
  const of = new Set(conversations.flatMap((c, i) => (c.kind.includes(kind) ? [i] : [])));
  console.log(
    `  ${kind.padEnd(16)} ${line(
      figuresOf(
        scored.filter((s) => of.has(s.conversation)),
        DEFAULT_MIN_RELEVANCE,
      ),
    )}`,
  );
}

const profiles = profilesOf(encoder, groups);
const probeReader = new ConversationReader(encoder);
const probeScores = (set: LabelledConversation[]) =>
  set.flatMap((c, ci) => {
    const view = probeReader.read(c.messages);
    return profiles.map((p, gi) => ({ conversation: ci, score: relevanceOf(view, p), relevant: c.relevant.includes(groups[gi].id) }));
  });
console.log(`probes (never tuned on; shipped model): ${line(figuresOf(probeScores(probes), DEFAULT_MIN_RELEVANCE))}`);
console.log(`probes-2 (never tuned on; shipped model): ${line(figuresOf(probeScores(probes2), DEFAULT_MIN_RELEVANCE))}`);

// Cost: each conversation read cold and its retrieved candidates scored, as the in-house bidder does.
const index = new RelevanceIndex(profiles.map((relevance) => ({ relevance })));
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const micros: number[] = [];
for (let round = 0; round < rounds; round++) {
  for (const c of conversations) {
    const reader = new ConversationReader(encoder, 1024 * 1024);
    const started = process.cpuUsage();
    const view = reader.read(c.messages);
    for (const candidate of index.candidates(view)) relevanceOf(view, candidate.relevance);
    const used = process.cpuUsage(started);
    micros.push(used.user + used.system);
  }
}
micros.sort((a, b) => a - b);
const at = (q: number) => Math.round(micros[Math.min(micros.length - 1, Math.floor(q * micros.length))]);
console.log(
  `relevance conversations=${labelled.conversations} precision=${labelled.precision.toFixed(3)} recall=${labelled.recall.toFixed(3)} top1=${labelled.top1.toFixed(3)} false_serve=${labelled.false_serve.toFixed(3)} p50_us=${at(0.5)} p99_us=${at(0.99)}`,
);
