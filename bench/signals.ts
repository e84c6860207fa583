import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ConversationReader } from '../domain/understanding/conversation';
import { normalizeWords, textEncoder } from '../domain/understanding/encoder';
import { conversationSignals, loadLanguageDetector, type ConversationSignals } from '../domain/understanding/signals';

/**
 * `npm run bench:signals` (no services): the bid-request signals
 * (docs/signals.md) on their labelled set (bench/signals/, its README has the
 * labelling rule), then the probes' figures (never tuned on), then the CPU
 * of making the signals beyond the relevance reading of the conversation.
 *
 *  - category_top1: of the conversations with a category, the share whose
 *    first tier-1 id is one of the labelled (`cat` or `alt`);
 *  - category_recall: the share of labelled `cat` ids found among ours;
 *  - language_accuracy: on conversations of at least 20 words (the goal's);
 *  - intent_recall: of the conversations with intent, the share whose query
 *    holds every labelled key term;
 *  - pii_leaks: personal data items of the set found in any signal;
 *  - p50_us: CPU per conversation (process.cpuUsage), the view made before.
 */
interface Labelled {
  id: string;
  lang: string;
  cat: string[];
  alt?: string[];
  t2?: string[];
  has_intent: boolean;
  intent: string[];
  kind: string[];
  pii?: string[];
  m: string[];
  /** Probes: the round they were written in (absent: 1); each round's first look is reported apart. */
  round?: number;
}

const load = (file: string): Labelled[] => JSON.parse(readFileSync(path.join(__dirname, 'signals', file), 'utf8')) as Labelled[];
const messagesOf = (c: Labelled) => c.m.map((content, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content }));

/** Whether query word `a` stands for key-term word `b` (the README's rule): equal, or the same stem of at least three letters with different endings of at most three. */
function sameWord(a: string, b: string): boolean {
  if (a === b) return true;
  let common = 0;
  while (common < a.length && common < b.length && a[common] === b[common]) common += 1;
  return common >= 3 && a.length - common <= 3 && b.length - common <= 3;
}

/** Whether the query holds every word of a key term (in any order: "used car" is in "a used hybrid car"). */
export function holdsTerm(query: string, term: string): boolean {
  const words = normalizeWords(query).split(' ');
  return normalizeWords(term)
    .split(' ')
    .every((w) => words.some((q) => sameWord(q, w)));
}

const digits = (s: string) => s.replace(/\D/g, '');

export function leaks(signals: ConversationSignals, pii: string): boolean {
  const text = [signals.search, ...signals.keywords].join(' | ');
  const folded = normalizeWords(text);
  const wanted = normalizeWords(pii);
  if (wanted && ` ${folded} `.includes(` ${wanted} `)) return true;
  const d = digits(pii);
  if (d.length >= 6 && digits(text).includes(d)) return true;
  // An e-mail's local part or a long number's last four digits on their own.
  const local = /^([^@\s]+)@/.exec(pii)?.[1];
  if (local && folded.includes(normalizeWords(local))) return true;
  return d.length >= 8 && new RegExp(`(^|\\D)${d.slice(-4)}(\\D|$)`).test(text);
}

interface Figures {
  conversations: number;
  categoryTop1: number;
  categoryRecall: number;
  tier2Precision: number;
  languageAccuracy: number;
  languageAccuracyAll: number;
  intentRecall: number;
  /** On the conversations whose key terms are all in the user's own messages (the others name what the user did not say). */
  intentRecallUserWords: number;
  userWordConversations: number;
  noIntentEmpty: number;
  piiLeaks: number;
  misses: string[];
}

function measure(set: Labelled[], signalsOf: (c: Labelled) => ConversationSignals): Figures {
  let withCat = 0;
  let top1 = 0;
  let labelledCats = 0;
  let foundCats = 0;
  let tier2Given = 0;
  let tier2Right = 0;
  let longOnes = 0;
  let longRight = 0;
  let langRight = 0;
  let withIntent = 0;
  let intentHeld = 0;
  let userWordCases = 0;
  let userWordHeld = 0;
  let noIntent = 0;
  let noIntentEmpty = 0;
  let piiLeaks = 0;
  const misses: string[] = [];
  for (const c of set) {
    const s = signalsOf(c);
    const tier1 = s.categories.filter((id) => !isTier2(id));
    if (c.cat.length) {
      withCat += 1;
      const ok = tier1.length > 0 && [...c.cat, ...(c.alt ?? [])].includes(tier1[0]);
      if (ok) top1 += 1;
      else misses.push(`${c.id} cat: got [${tier1.join(',')}] want [${c.cat.join(',')}]`);
      labelledCats += c.cat.length;
      foundCats += c.cat.filter((id) => tier1.includes(id)).length;
      for (const id of s.categories.filter(isTier2)) {
        tier2Given += 1;
        if ((c.t2 ?? []).some((t) => tier2Ancestor(t) === id)) tier2Right += 1;
      }
    }
    const words = c.m.join(' ').split(/\s+/).length;
    const langOk = s.language === c.lang;
    if (langOk) langRight += 1;
    if (words >= 20) {
      longOnes += 1;
      if (langOk) longRight += 1;
      else misses.push(`${c.id} language: got ${s.language} want ${c.lang}`);
    }
    if (c.has_intent) {
      withIntent += 1;
      const userWords = c.m.filter((_, i) => i % 2 === 0).join(' ');
      const said = c.intent.every((t) => holdsTerm(userWords, t));
      if (said) userWordCases += 1;
      if (said && c.intent.every((t) => holdsTerm(s.search, t))) userWordHeld += 1;
      if (c.intent.every((t) => holdsTerm(s.search, t))) intentHeld += 1;
      else misses.push(`${c.id} intent: "${s.search}" lacks [${c.intent.filter((t) => !holdsTerm(s.search, t)).join(', ')}]`);
    } else {
      noIntent += 1;
      if (s.search === '') noIntentEmpty += 1;
      else misses.push(`${c.id} no intent, got "${s.search}"`);
    }
    for (const p of c.pii ?? []) {
      if (leaks(s, p)) {
        piiLeaks += 1;
        misses.push(`${c.id} LEAK ${p}`);
      }
    }
  }
  return {
    conversations: set.length,
    categoryTop1: top1 / withCat,
    categoryRecall: foundCats / labelledCats,
    tier2Precision: tier2Given ? tier2Right / tier2Given : NaN,
    languageAccuracy: longRight / longOnes,
    languageAccuracyAll: langRight / set.length,
    intentRecall: intentHeld / withIntent,
    intentRecallUserWords: userWordHeld / userWordCases,
    userWordConversations: userWordCases,
    noIntentEmpty: noIntent ? noIntentEmpty / noIntent : NaN,
    piiLeaks,
    misses,
  };
}

let tierOf: Map<string, { tier: number; parent: string | null }> | undefined;
function taxonomyIndex() {
  if (!tierOf) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { contentTaxonomy } = require('../domain/understanding/content-taxonomy') as typeof import('../domain/understanding/content-taxonomy');
    tierOf = new Map(contentTaxonomy().map((c) => [c.id, { tier: c.tier, parent: c.parent }]));
  }
  return tierOf;
}
const isTier2 = (id: string) => (taxonomyIndex().get(id)?.tier ?? 1) >= 2;
function tier2Ancestor(id: string): string {
  let at = id;
  while ((taxonomyIndex().get(at)?.tier ?? 2) > 2) at = taxonomyIndex().get(at)!.parent!;
  return at;
}

const f3 = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : 'n/a');
const detail = (f: Figures) =>
  `category_top1 ${f3(f.categoryTop1)}, category_recall ${f3(f.categoryRecall)}, tier2 precision ${f3(f.tier2Precision)}, language ${f3(f.languageAccuracy)} (all lengths ${f3(f.languageAccuracyAll)}), intent_recall ${f3(f.intentRecall)} (${f3(f.intentRecallUserWords)} on the ${f.userWordConversations} whose key terms the user said), no-intent left empty ${f3(f.noIntentEmpty)}, pii_leaks ${f.piiLeaks}`;

async function main() {
  await loadLanguageDetector();
  const encoder = textEncoder();
  const labelled = load('conversations.json');
  const probes = load('probes.json');
  const reader = new ConversationReader(encoder);
  const signalsOf = (c: Labelled) => {
    const messages = messagesOf(c);
    return conversationSignals({ messages, view: reader.read(messages), encoder });
  };
  const set = measure(labelled, signalsOf);
  if (process.env.BENCH_VERBOSE) for (const m of set.misses) console.log(`  ${m}`);
  console.log(`labelled set: ${detail(set)}`);
  const byLanguage = new Map<string, Labelled[]>();
  for (const c of labelled) byLanguage.set(c.lang === 'en' ? 'en' : 'other', [...(byLanguage.get(c.lang === 'en' ? 'en' : 'other') ?? []), c]);
  for (const [lang, part] of byLanguage)
    console.log(`  ${lang === 'en' ? 'English' : 'other languages'} (${part.length}): ${detail(measure(part, signalsOf))}`);
  const probe = measure(probes, signalsOf);
  if (process.env.BENCH_VERBOSE) for (const m of probe.misses) console.log(`  probe ${m}`);
  console.log(`probes (never tuned on): ${detail(probe)}`);
  const rounds = [...new Set(probes.map((c) => c.round ?? 1))].sort((a, b) => a - b);
  if (rounds.length > 1)
    for (const round of rounds) {
      const part = probes.filter((c) => (c.round ?? 1) === round);
      console.log(`  probe round ${round} (${part.length}): ${detail(measure(part, signalsOf))}`);
    }

  // Cost: the signals of each conversation, its relevance reading made before (the auction makes it for the in-house bidder).
  const cpuRounds = Number(process.env.BENCH_ROUNDS ?? 5);
  const micros: number[] = [];
  const prepared = labelled.map((c) => {
    const messages = messagesOf(c);
    return { messages, view: reader.read(messages) };
  });
  for (let round = 0; round < cpuRounds; round++) {
    for (const p of prepared) {
      const started = process.cpuUsage();
      conversationSignals({ messages: p.messages, view: p.view, encoder });
      const used = process.cpuUsage(started);
      micros.push(used.user + used.system);
    }
  }
  micros.sort((a, b) => a - b);
  const at = (q: number) => Math.round(micros[Math.min(micros.length - 1, Math.floor(q * micros.length))]);
  console.log(`cpu per conversation: p50 ${at(0.5)} us, p99 ${at(0.99)} us (${cpuRounds} rounds)`);
  console.log(
    `signals conversations=${set.conversations} category_top1=${f3(set.categoryTop1)} category_recall=${f3(set.categoryRecall)} language_accuracy=${f3(set.languageAccuracy)} intent_recall=${f3(set.intentRecall)} pii_leaks=${set.piiLeaks} p50_us=${at(0.5)}`,
  );
}

void main();
