/**
 * The sensitive-conversation classifier (domain/safety) on its labelled set
 * (test/fixtures/safety/conversations.jsonl): quality per split and per
 * category, the confusion, then its latency on this machine. No services.
 *
 * Quality: recall_never (conversations with a `never` label that got a
 * `never` category), recall_all (sensitive conversations that got any
 * category), false_block (ordinary conversations that got one); per split:
 * batch1 (tuned on), holdout (never tuned on), each probe (probes 1 to 6
 * tuned on after their first look; probes 7 and 8 written after all tuning
 * and never tuned on), each beside the lexicon alone (without the learned
 * scorer). The last line is over the whole set, plus ordinary_false_block:
 * the share of the ordinary-conversation set's fresh probes (its held-out part,
 * test/fixtures/safety/ordinary.jsonl, never tuned on) that were refused.
 * Latency: every conversation classified BENCH_ROUNDS times (default 40) after
 * BENCH_WARMUP rounds (default 20), each call timed alone and cold (the
 * per-message caches emptied before it, off the clock); p50 and p99 in
 * microseconds. Then 24-message conversations, cold, and with their first 23
 * messages already seen (a chat host resending its history with one new
 * message).
 *
 *   npm run bench:safety
 */
import os from 'node:os';
import { SENSITIVE_CATEGORIES } from '../domain/safety/categories';
import { classifyConversation, clearMessageCaches, explainConversation, NEVER_LOOKBACK_MESSAGES } from '../domain/safety/classifier/classifier';
import { evaluate, ORDINARY_SET_PATH, readLabelledSet, reportSplits, type Evaluation } from '../domain/safety/training/evaluation';

const rounds = Number(process.env.BENCH_ROUNDS ?? 40);
const warmup = Number(process.env.BENCH_WARMUP ?? 20);

const set = readLabelledSet();
const classify = (messages: Parameters<typeof classifyConversation>[0]) => classifyConversation(messages).categories;
const fixed = (n: number) => n.toFixed(2);
/** Quality figures to 3 decimals: 0.979 must not print as the goal's 0.98. */
const figure = (n: number) => n.toFixed(3);
const headline = (e: Evaluation) =>
  `conversations=${e.conversations} sensitive=${e.sensitive} recall_never=${figure(e.recallNever)} recall_all=${figure(e.recallAll)} false_block=${figure(e.falseBlock)}`;

const lexiconAlone = (messages: Parameters<typeof classifyConversation>[0]) => explainConversation(messages).lexiconCategories;
const brief = (e: Evaluation) => `recall_never=${figure(e.recallNever)} recall_all=${figure(e.recallAll)} false_block=${figure(e.falseBlock)}`;
for (const [name, rows] of [...Object.entries(reportSplits(set)), ['all', set] as const])
  console.log(`${name.padEnd(8)} ${headline(evaluate(rows, classify))}   (lexicon alone: ${brief(evaluate(rows, lexiconAlone))})`);

const all = evaluate(set, classify);
console.log('\nper category (whole set): recall = found/support; extra = found where not labelled');
for (const c of SENSITIVE_CATEGORIES) {
  const f = all.perCategory[c];
  console.log(`  ${c.padEnd(21)} recall=${fixed(f.recall)} (${f.found}/${f.support}) extra=${f.extra}`);
}

// Rows: the labelled category; columns: what was found on those conversations.
const short = (c: string) => c.slice(0, 6);
console.log(`\nconfusion (row: labelled, column: found)\n  ${''.padEnd(21)} ${[...SENSITIVE_CATEGORIES, 'none'].map((c) => short(c).padStart(6)).join(' ')}`);
for (const c of SENSITIVE_CATEGORIES) {
  const row = all.perCategory[c].confusion;
  console.log(`  ${c.padEnd(21)} ${[...SENSITIVE_CATEGORIES, 'none' as const].map((k) => String(row[k]).padStart(6)).join(' ')}`);
}
const ordinary = readLabelledSet(ORDINARY_SET_PATH);
const ordinaryProbe = evaluate(
  ordinary.filter((r) => r.holdout),
  classify,
);
const ordinaryTuned = evaluate(
  ordinary.filter((r) => !r.holdout),
  classify,
);
console.log(
  `\nordinary conversations (${ORDINARY_SET_PATH.split('/').slice(-3).join('/')}): fresh probes ${ordinaryProbe.falseBlocks.length}/${ordinaryProbe.ordinary} refused (${figure(ordinaryProbe.falseBlock)}), tuning part ${ordinaryTuned.falseBlocks.length}/${ordinaryTuned.ordinary} (${figure(ordinaryTuned.falseBlock)})`,
);
for (const f of [...ordinaryProbe.falseBlocks, ...ordinaryTuned.falseBlocks]) console.log(`  refused: ${f.id} (${f.found.join(',')})`);
if (all.misses.length) console.log(`\nmissed labels: ${all.misses.map((m) => m.id).join(' ')}`);
if (all.falseBlocks.length) console.log(`false blocks: ${all.falseBlocks.map((f) => `${f.id}(${f.found.join(',')})`).join(' ')}`);

for (let r = 0; r < warmup; r += 1) for (const row of set) classifyConversation(row.messages);
const micros = new Float64Array(rounds * set.length);
let n = 0;
for (let r = 0; r < rounds; r += 1) {
  for (const row of set) {
    clearMessageCaches();
    const start = process.hrtime.bigint();
    classifyConversation(row.messages);
    micros[n] = Number(process.hrtime.bigint() - start) / 1000;
    n += 1;
  }
}
micros.sort();
const quantile = (q: number) => micros[Math.min(micros.length - 1, Math.floor(q * micros.length))];
const messagesPerConversation = set.reduce((sum, row) => sum + row.messages.length, 0) / set.length;
console.log(
  `\nlatency: ${micros.length} classifications (${fixed(messagesPerConversation)} messages each on average), p50_us=${Math.round(quantile(0.5))} p99_us=${Math.round(quantile(0.99))} max_us=${Math.round(quantile(1))}; load average ${os.loadavg().map(fixed).join(' ')} on ${os.cpus().length} cores`,
);

// Long conversations: consecutive labelled conversations joined into 24 messages, the classifier's whole lookback.
const long: (typeof set)[number]['messages'][] = [];
let joined: (typeof set)[number]['messages'] = [];
for (const row of set) {
  joined = [...joined, ...row.messages];
  if (joined.length >= NEVER_LOOKBACK_MESSAGES) {
    long.push(joined.slice(0, NEVER_LOOKBACK_MESSAGES));
    joined = [];
  }
}
const longMicros: number[] = [];
const oneNewMicros: number[] = [];
for (let r = 0; r < rounds; r += 1) {
  for (const messages of long) {
    clearMessageCaches();
    let start = process.hrtime.bigint();
    classifyConversation(messages);
    longMicros.push(Number(process.hrtime.bigint() - start) / 1000);
    clearMessageCaches();
    classifyConversation(messages.slice(0, -1));
    start = process.hrtime.bigint();
    classifyConversation(messages);
    oneNewMicros.push(Number(process.hrtime.bigint() - start) / 1000);
  }
}
const sortedQuantile = (values: number[], q: number) => {
  values.sort((a, b) => a - b);
  return Math.round(values[Math.min(values.length - 1, Math.floor(q * values.length))]);
};
console.log(
  `latency of ${NEVER_LOOKBACK_MESSAGES}-message conversations: ${longMicros.length} classifications, cold p50_us=${sortedQuantile(longMicros, 0.5)} p99_us=${sortedQuantile(longMicros, 0.99)}; one new message on a seen history p50_us=${sortedQuantile(oneNewMicros, 0.5)} p99_us=${sortedQuantile(oneNewMicros, 0.99)}`,
);
console.log(
  `safety ${headline(all).replace(/ sensitive=\d+/, '')} p50_us=${Math.round(quantile(0.5))} ordinary_false_block=${figure(ordinaryProbe.falseBlock)}`,
);
