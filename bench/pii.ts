import { readFileSync } from 'node:fs';
import path from 'node:path';
import { findPiiInMessages, maskMessages, PII_TYPES, type PiiType } from '../domain/understanding/pii';

/**
 * `npm run bench:pii` (no services): the personal-data mask
 * (domain/understanding/pii.ts) on its labelled set (bench/pii/, its README
 * has the labelling rule), then the probes' figures (never tuned on), then
 * the CPU of masking a conversation, beside its floor in the same run.
 *
 *  - recall: of the labelled items, the share whose every letter and digit
 *    the mask covers (per type above the last line; `typed`: covered by a
 *    placeholder of the labelled type);
 *  - false_mask: of the ordinary tokens (whitespace-separated, outside every
 *    labelled item), the share a mask touches; also on the tokens with a digit;
 *  - p50_us: CPU per conversation of `maskMessages` (what the auction runs once
 *    per request), cold (no cache: there is none);
 *  - floor_p50_us: CPU per conversation of reading each message once (a
 *    regular expression that looks for a digit run and an "@"), the least any
 *    masker pays, measured in the same run.
 */
interface Labelled {
  id: string;
  lang: string;
  m: string[];
  pii: [PiiType, string][];
}

const load = (file: string): Labelled[] => JSON.parse(readFileSync(path.join(__dirname, 'pii', file), 'utf8')) as Labelled[];
const messagesOf = (c: Labelled) => c.m.map((content, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content }));

interface Span {
  start: number;
  end: number;
  type: string;
}

/** Every place each labelled item occurs in `text`, the longest first ("Claire" inside "Claire Dubois" is not another item). */
function labelledSpans(text: string, labels: [PiiType, string][]): Span[] {
  const spans: Span[] = [];
  const seen = new Set<string>();
  for (const [type, item] of [...labels].sort((a, b) => b[1].length - a[1].length)) {
    if (seen.has(item)) continue;
    seen.add(item);
    for (let at = text.indexOf(item); at >= 0; at = text.indexOf(item, at + item.length)) {
      const span = { start: at, end: at + item.length, type };
      if (!spans.some((s) => overlaps(span, s))) spans.push(span);
    }
  }
  return spans;
}

const ALNUM = /[\p{L}\p{N}]/u;
const covered = (i: number, masks: Span[]) => masks.some((m) => m.start <= i && i < m.end);
const overlaps = (a: { start: number; end: number }, b: Span) => a.start < b.end && b.start < a.end;

interface Figures {
  conversations: number;
  items: Record<string, { total: number; found: number; typed: number }>;
  tokens: number;
  falseTokens: number;
  numericTokens: number;
  falseNumeric: number;
  misses: string[];
}

function measure(set: Labelled[]): Figures {
  const items: Figures['items'] = Object.fromEntries(PII_TYPES.map((t) => [t, { total: 0, found: 0, typed: 0 }]));
  let tokens = 0;
  let falseTokens = 0;
  let numericTokens = 0;
  let falseNumeric = 0;
  const misses: string[] = [];
  for (const c of set) {
    for (const label of c.pii) if (!c.m.some((t) => t.includes(label[1]))) throw new Error(`${c.id}: labelled ${label[0]} "${label[1]}" is in no message`);
    const found = findPiiInMessages(c.m);
    for (const [at, text] of c.m.entries()) {
      const labels = labelledSpans(text, c.pii);
      const masks = found[at];
      for (const l of labels) {
        const tally = items[l.type];
        tally.total += 1;
        let whole = true;
        for (let i = l.start; i < l.end; i += 1) if (ALNUM.test(text[i]) && !covered(i, masks)) whole = false;
        if (whole) {
          tally.found += 1;
          if (masks.some((m) => overlaps(l, m) && m.type === l.type)) tally.typed += 1;
          else
            misses.push(
              `${c.id} ${l.type} typed ${masks
                .filter((m) => overlaps(l, m))
                .map((m) => m.type)
                .join(',')}: "${text.slice(l.start, l.end)}"`,
            );
        } else misses.push(`${c.id} MISSED ${l.type}: "${text.slice(l.start, l.end)}"`);
      }
      for (const t of text.matchAll(/\S+/g)) {
        const token = { start: t.index, end: t.index + t[0].length };
        if (labels.some((l) => overlaps(token, l))) continue;
        const numeric = /\d/.test(t[0]);
        const masked = masks.some((m) => overlaps(token, m));
        tokens += 1;
        if (numeric) numericTokens += 1;
        if (masked) {
          falseTokens += 1;
          if (numeric) falseNumeric += 1;
          misses.push(`${c.id} FALSE MASK "${t[0]}" in "${masks.map((m) => text.slice(m.start, m.end)).join('", "')}"`);
        }
      }
    }
  }
  return { conversations: set.length, items, tokens, falseTokens, numericTokens, falseNumeric, misses };
}

const f3 = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : 'n/a');
const recallOf = (f: Figures) => {
  const all = Object.values(f.items).reduce((a, t) => ({ total: a.total + t.total, found: a.found + t.found }), { total: 0, found: 0 });
  return all.found / all.total;
};
function detail(f: Figures): string {
  const perType = Object.entries(f.items)
    .filter(([, t]) => t.total > 0)
    .map(([type, t]) => `${type} ${f3(t.found / t.total)} (${t.found}/${t.total}, typed ${t.typed})`)
    .join(', ');
  return `recall ${f3(recallOf(f))}: ${perType}; false_mask ${f3(f.falseTokens / f.tokens)} (${f.falseTokens}/${f.tokens} tokens; ${f.falseNumeric}/${f.numericTokens} tokens with a digit)`;
}

/** CPU per conversation (microseconds) of `work` over each conversation, `rounds` times, each timed over `repeat` runs. */
function cpuPerConversation(conversations: { role: string; content: string }[][], work: (m: { role: string; content: string }[]) => unknown, rounds: number) {
  const repeat = 20;
  const micros: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    for (const messages of conversations) {
      const started = process.cpuUsage();
      for (let r = 0; r < repeat; r += 1) work(messages);
      const used = process.cpuUsage(started);
      micros.push((used.user + used.system) / repeat);
    }
  }
  micros.sort((a, b) => a - b);
  return (q: number) => micros[Math.min(micros.length - 1, Math.floor(q * micros.length))];
}

/** The floor: each message read once by one regular expression (a digit run, an "@"). */
const FLOOR = /\d[\d\s]{6}|@/;
const floorWork = (messages: { content: string }[]) => {
  for (const m of messages) FLOOR.test(m.content);
};

function main() {
  const labelled = load('conversations.json');
  const probes = load('probes.json');
  const set = measure(labelled);
  if (process.env.BENCH_VERBOSE) for (const m of set.misses) console.log(`  ${m}`);
  console.log(`labelled set (${labelled.length} conversations, ${labelled.filter((c) => c.pii.length).length} with personal data): ${detail(set)}`);
  const probe = measure(probes);
  if (process.env.BENCH_VERBOSE) for (const m of probe.misses) console.log(`  probe ${m}`);
  console.log(`probes (${probes.length}, written after the tuning; their first look: bench/pii/README.md): ${detail(probe)}`);

  const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
  const conversations = labelled.map(messagesOf);
  // Warm both (the regular expressions compiled, the functions optimised) before measuring either.
  for (let i = 0; i < 200; i += 1) {
    for (const c of conversations) {
      maskMessages(c);
      floorWork(c);
    }
  }
  const mask = cpuPerConversation(conversations, maskMessages, rounds);
  const floor = cpuPerConversation(conversations, floorWork, rounds);
  const r = (x: number) => Math.round(x * 10) / 10;
  console.log(`cpu per conversation: p50 ${r(mask(0.5))} us, p99 ${r(mask(0.99))} us; floor p50 ${r(floor(0.5))} us (${rounds} rounds)`);
  console.log(
    `pii conversations=${set.conversations} recall=${f3(recallOf(set))} false_mask=${f3(set.falseTokens / set.tokens)} p50_us=${r(mask(0.5))} floor_p50_us=${r(floor(0.5))}`,
  );
}

main();
