/**
 * The in-house bidder's cost per request against the size of the catalog
 * (issue 45 goal 5), in process, no services: BENCH_GROUPS servable ad groups
 * (one ad each) with hints made by combining vocabularies, their profiles and
 * retrieval index built as the auction builds them on a load (load_s), then
 * inhouseBid for BENCH_REQUESTS conversations never seen before, each read
 * cold first and that understanding timed apart (it is the request's, shared by
 * every bidder and signal; the bidder's own cost is what grows with the
 * catalog). The floor: the same at
 * 1,000 groups in the same run. Also the nearest-neighbour index's recall
 * against an exact scan (the share of the exact NEAREST_GROUPS found).
 * Memory: heap and RSS before and after the catalog (run with --expose-gc for
 * steadier figures), and the bytes a group's profile and index entry hold.
 */
import { seededRandom } from '../lib/ivf-index';
import { loadavg } from 'node:os';
import { benchAuctionContext, benchServableAd } from './support/auction-context';
import type { IndexedAd } from '../auction/inhouse/ad-index';
import type { AuctionContext } from '../auction/types';
import { inhouseBid } from '../auction/inhouse/bidder';
import { alwaysOpenBudget, priorCtr } from '../auction/inhouse/eligibility';
import {
  loadRelevanceIndex,
  NEAREST_GROUPS,
  newProfileCache,
  profileOf,
  readConversation,
  relevanceIndexOf,
  type RelevanceIndex,
} from '../auction/inhouse/relevance';
import { dot } from '../domain/understanding/encoder';

const GROUPS = Number(process.env.BENCH_GROUPS ?? 100_000);
const FLOOR_GROUPS = 1_000;
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 3_000);
const RECALL_QUERIES = 300;

/** The seeded generator the index builds with (mulberry32). */
export const seeded = seededRandom;

/** Verticals: [products, modifiers, what a user does with them]. */
const VERTICALS: [string[], string[], string[]][] = [
  [
    ['running shoes', 'trail shoes', 'marathon', 'half marathon', 'running socks', 'insoles', 'sneakers', 'track spikes'],
    ['cushioned', 'lightweight', 'waterproof', 'wide', 'carbon plate', 'zero drop', 'stability', 'racing'],
    ['training for', 'running a', 'buying', 'breaking in'],
  ],
  [
    ['espresso machine', 'coffee grinder', 'coffee beans', 'pour over', 'cold brew', 'milk frother', 'french press', 'decaf'],
    ['single origin', 'burr', 'dark roast', 'light roast', 'organic', 'fair trade', 'automatic', 'manual'],
    ['brewing', 'dialing in', 'buying', 'grinding'],
  ],
  [
    ['mechanical keyboard', 'keycaps', 'gaming mouse', 'monitor', 'headset', 'webcam', 'standing desk', 'office chair'],
    ['wireless', 'ergonomic', 'hot swap', 'linear switches', 'tactile', '4k', 'curved', 'low profile'],
    ['setting up', 'upgrading', 'buying', 'typing on'],
  ],
  [
    ['dog food', 'cat litter', 'puppy training', 'dog bed', 'cat tree', 'pet insurance', 'chew toys', 'flea treatment'],
    ['grain free', 'organic', 'orthopedic', 'senior', 'large breed', 'indoor', 'natural', 'vet approved'],
    ['feeding', 'adopting', 'training', 'buying'],
  ],
  [
    ['sourdough starter', 'bread flour', 'dutch oven', 'stand mixer', 'baking sheets', 'proofing basket', 'pizza stone', 'cake pans'],
    ['whole wheat', 'rye', 'enameled', 'cast iron', 'non stick', 'professional', 'gluten free', 'artisan'],
    ['baking', 'feeding', 'shaping', 'buying'],
  ],
  [
    ['fishing rod', 'bass lures', 'fly fishing', 'tackle box', 'fishing reel', 'waders', 'fish finder', 'kayak'],
    ['spinning', 'baitcasting', 'saltwater', 'freshwater', 'ultralight', 'telescopic', 'sonar', 'inflatable'],
    ['casting', 'catching', 'buying', 'rigging'],
  ],
  [
    ['tax software', 'accountant', 'bookkeeping', 'payroll', 'invoicing', 'expense tracking', 'tax return', 'audit help'],
    ['small business', 'freelance', 'self employed', 'online', 'affordable', 'certified', 'automated', 'cloud'],
    ['filing', 'preparing', 'doing', 'paying for'],
  ],
  [
    ['language app', 'spanish lessons', 'french tutor', 'japanese course', 'grammar book', 'flashcards', 'pronunciation', 'immersion program'],
    ['beginner', 'advanced', 'conversational', 'online', 'private', 'intensive', 'free trial', 'certified'],
    ['learning', 'practicing', 'studying', 'taking'],
  ],
  [
    ['moving company', 'packing boxes', 'storage unit', 'moving truck', 'movers', 'piano moving', 'furniture delivery', 'relocation'],
    ['local', 'long distance', 'affordable', 'climate controlled', 'full service', 'same day', 'insured', 'cheap'],
    ['hiring', 'booking', 'renting', 'planning'],
  ],
  [
    ['hiking boots', 'backpack', 'tent', 'sleeping bag', 'trekking poles', 'headlamp', 'water filter', 'camping stove'],
    ['ultralight', 'waterproof', 'four season', 'insulated', 'compact', 'durable', 'budget', 'rechargeable'],
    ['packing', 'buying', 'testing', 'carrying'],
  ],
  [
    ['skincare', 'sunscreen', 'moisturizer', 'retinol serum', 'face wash', 'acne treatment', 'eye cream', 'vitamin c serum'],
    ['fragrance free', 'sensitive skin', 'spf 50', 'oil free', 'hydrating', 'dermatologist tested', 'vegan', 'mineral'],
    ['using', 'trying', 'buying', 'applying'],
  ],
  [
    ['electric car', 'car insurance', 'ev charger', 'winter tires', 'car wash', 'dash cam', 'roof rack', 'car seat'],
    ['fast charging', 'all season', 'affordable', 'long range', 'used', 'leased', 'premium', 'portable'],
    ['buying', 'installing', 'charging', 'comparing'],
  ],
  [
    ['yoga mat', 'meditation app', 'resistance bands', 'dumbbells', 'protein powder', 'gym membership', 'fitness tracker', 'foam roller'],
    ['non slip', 'adjustable', 'whey', 'plant based', 'guided', 'heavy duty', 'home', 'smart'],
    ['doing', 'starting', 'buying', 'using'],
  ],
  [
    ['guitar strings', 'electric guitar', 'bass guitar', 'amplifier', 'guitar lessons', 'effects pedal', 'digital piano', 'drum kit'],
    ['acoustic', 'beginner', 'tube', 'weighted keys', 'vintage', 'left handed', 'online', 'electronic'],
    ['playing', 'learning', 'buying', 'tuning'],
  ],
  [
    ['houseplants', 'potting soil', 'grow lights', 'garden hose', 'seeds', 'raised beds', 'lawn mower', 'compost bin'],
    ['indoor', 'organic', 'heirloom', 'cordless', 'self watering', 'pet safe', 'led', 'expandable'],
    ['growing', 'planting', 'watering', 'buying'],
  ],
  [
    ['flight deals', 'hotel booking', 'travel insurance', 'rental car', 'luggage', 'travel adapter', 'city tours', 'beach resort'],
    ['last minute', 'all inclusive', 'carry on', 'budget', 'luxury', 'family', 'refundable', 'business class'],
    ['booking', 'planning', 'packing', 'comparing'],
  ],
];
const CONTEXTS = [
  'for my sister',
  'before the weekend',
  'on a budget',
  'for the first time',
  'this spring',
  'after work',
  'for our new apartment',
  'with my kids',
  'in a small town',
  'next month',
];
const OFF_TOPIC = [
  'how do I write a haiku about autumn',
  'what year did the roman empire fall',
  'explain photosynthesis simply',
  'who won the chess world championship',
  'what is the capital of mongolia',
  'help me with a limerick about a cat',
];
const SYLLABLES = ['ka', 'vo', 'zen', 'tri', 'lo', 'mar', 'qui', 'dex', 'po', 'ra', 'nu', 'sel', 'fi', 'gor', 'ta', 'bri'];

const pick = <T>(random: () => number, xs: readonly T[]): T => xs[Math.floor(random() * xs.length)];

interface GroupSource {
  hints: string[];
  copy: string;
}

/** An advertiser's ad group: a brand, 2-5 hints of one vertical (products, modifier + product, brand + product), its copy. */
export function groupSource(random: () => number): GroupSource {
  const [products, modifiers] = pick(random, VERTICALS);
  const brand = `${pick(random, SYLLABLES)}${pick(random, SYLLABLES)}${pick(random, SYLLABLES)}`;
  const hints = new Set<string>();
  const count = 2 + Math.floor(random() * 4);
  while (hints.size < count) {
    const product = pick(random, products);
    const r = random();
    hints.add(r < 0.1 ? product : r < 0.7 ? `${pick(random, modifiers)} ${product}` : `${brand} ${product}`);
  }
  const product = pick(random, products);
  return {
    hints: [...hints],
    copy: `${brand}: ${pick(random, modifiers)} ${product}. ${pick(random, modifiers)} and ${pick(random, modifiers)}, ${pick(random, CONTEXTS)}.`,
  };
}

/** A conversation never seen before: about a vertical most of the time, about nothing we sell otherwise. */
export function conversation(random: () => number, n: number): { role: string; content: string }[] {
  if (random() < 0.25) {
    return [
      { role: 'user', content: `${pick(random, OFF_TOPIC)}? (question ${n})` },
      { role: 'assistant', content: `Here is a short answer, number ${n}.` },
    ];
  }
  const [products, modifiers, doing] = pick(random, VERTICALS);
  const product = pick(random, products);
  return [
    { role: 'user', content: `I am ${pick(random, doing)} ${pick(random, modifiers)} ${product} ${pick(random, CONTEXTS)}, any advice? #${n}` },
    { role: 'assistant', content: `Sure: compare ${pick(random, modifiers)} options and read reviews of ${product} first (tip ${n}).` },
  ];
}

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

/** The catalog built as a load builds it: profiles (one cache per load), then the retrieval index. */
async function loadCatalog(
  groups: number,
  seed: number,
): Promise<{ ads: IndexedAd[]; index: RelevanceIndex<IndexedAd>; profilesS: number; indexS: number; cpuS: number }> {
  const random = seeded(seed);
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  const cache = newProfileCache();
  const ads: IndexedAd[] = [];
  for (let g = 0; g < groups; g++) ads.push(benchServableAd(profileOf(`g${g}`, groupSource(random), cache)));
  const profilesS = (performance.now() - started) / 1000;
  const indexStarted = performance.now();
  const index = await loadRelevanceIndex(ads);
  const cpu = process.cpuUsage(cpuStarted);
  return { ads, index, profilesS, indexS: (performance.now() - indexStarted) / 1000, cpuS: (cpu.user + cpu.system) / 1e6 };
}

/** Bytes a group's profile holds (each vector counted once however many groups share it). */
function profileBytes(ads: readonly IndexedAd[]): number {
  const arrays = new Set<Float32Array>();
  let strings = 0;
  for (const { relevance: p } of ads) {
    arrays.add(p.topic);
    arrays.add(p.hints);
    for (const h of p.hintVectors) arrays.add(h);
    strings += p.phrases.reduce((s, x) => s + 2 * x.length + 16, 0);
  }
  let bytes = strings;
  for (const a of arrays) bytes += a.byteLength + 64;
  return bytes / ads.length;
}

function contextOf(messages: { role: string; content: string }[]): AuctionContext {
  const ctx = benchAuctionContext({ country_code: 'US', ad_formats: ['sponsored_message'] });
  return { ...ctx, window: messages, request: { ...ctx.request, request_type: 'contextual' } } as AuctionContext;
}

/**
 * Microseconds (wall and CPU) of inhouseBid per request, fresh conversations
 * (seeded apart from the catalog's). Each conversation is understood first,
 * timed apart (`understanding`): the auction reads a request's conversation
 * once for every bidder and signal (issue 45 goal 4 bounds that cost), and the
 * in-house cost that grows with the catalog is what the bidder does after it.
 */
function measure(
  ads: readonly IndexedAd[],
  requests: number,
  seed: number,
): { wall: number[]; cpu: number[]; understanding: number[]; served: number; candidates: number } {
  const random = seeded(seed);
  const deps = { budget: alwaysOpenBudget, ctr: priorCtr };
  const wall: number[] = [];
  const cpu: number[] = [];
  const understanding: number[] = [];
  let served = 0;
  for (let r = 0; r < requests; r++) {
    const ctx = contextOf(conversation(random, seed * 1_000_000 + r));
    const readStarted = process.cpuUsage();
    readConversation(ctx.window);
    const read = process.cpuUsage(readStarted);
    understanding.push(read.user + read.system);
    const cpuStarted = process.cpuUsage();
    const started = performance.now();
    const result = inhouseBid(ctx, ads, deps);
    wall.push((performance.now() - started) * 1000);
    const used = process.cpuUsage(cpuStarted);
    cpu.push(used.user + used.system);
    if (result.bid) served++;
  }
  // Candidates scored per request (outside the timing).
  let candidates = 0;
  const index = relevanceIndexOf(ads);
  for (let r = 0; r < 200; r++) candidates += index.candidates(readConversation(conversation(random, -r - 1))).length;
  return { wall, cpu, understanding, served, candidates: candidates / 200 };
}

/** Microseconds of each nearest-groups query recallOf made (the retrieval alone). */
const nearestUs: number[] = [];

/** The share of the exact NEAREST_GROUPS nearest groups the index finds. */
function recallOf(ads: readonly IndexedAd[], index: RelevanceIndex<IndexedAd>, seed: number): number {
  const random = seeded(seed);
  const topics = ads.map((a) => a.relevance.topic);
  let found = 0;
  let total = 0;
  for (let q = 0; q < RECALL_QUERIES; q++) {
    const view = readConversation(conversation(random, -1_000_000 - q));
    const exact = topics
      .map((t, i) => [dot(view.recent, t), i] as const)
      .sort((a, b) => b[0] - a[0])
      .slice(0, NEAREST_GROUPS)
      .map(([, i]) => i);
    const started = performance.now();
    const approx = new Set(index.nearest(view.recent, NEAREST_GROUPS));
    nearestUs.push((performance.now() - started) * 1000);
    found += exact.filter((i) => approx.has(i)).length;
    total += exact.length;
  }
  return found / total;
}

const percentile = (xs: number[], q: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
};

async function main() {
  // Warm up the encoder and the bidder's code paths on the floor's catalog.
  const floor = await loadCatalog(FLOOR_GROUPS, 1);
  measure(floor.ads, 300, 7);
  const floorRun = measure(floor.ads, REQUESTS, 2);

  gc();
  const before = process.memoryUsage();
  const big = await loadCatalog(GROUPS, 3);
  gc();
  const after = process.memoryUsage();
  measure(big.ads, 300, 8);
  const run = measure(big.ads, REQUESTS, 4);
  const recall = recallOf(big.ads, big.index, 5);

  const p50 = percentile(run.wall, 0.5);
  const p99 = percentile(run.wall, 0.99);
  const floorP50 = percentile(floorRun.wall, 0.5);
  const heapPerGroup = (after.heapUsed + after.arrayBuffers - before.heapUsed - before.arrayBuffers) / GROUPS;
  console.log(
    `floor ad_groups=${FLOOR_GROUPS} p50_us=${floorP50.toFixed(0)} p99_us=${percentile(floorRun.wall, 0.99).toFixed(0)} cpu_p50_us=${percentile(floorRun.cpu, 0.5).toFixed(0)}`,
  );
  console.log(`ratio_p50=${(p50 / floorP50).toFixed(2)} (catalog ${GROUPS / FLOOR_GROUPS}x larger)`);
  console.log(
    `cpu_p50_us=${percentile(run.cpu, 0.5).toFixed(0)} cpu_p99_us=${percentile(run.cpu, 0.99).toFixed(0)} understanding_cpu_p50_us=${percentile(run.understanding, 0.5).toFixed(0)} understanding_cpu_p99_us=${percentile(run.understanding, 0.99).toFixed(0)} (each conversation read cold, before the bidder)`,
  );
  console.log(
    `candidates_per_request=${run.candidates.toFixed(0)} served_share=${(run.served / REQUESTS).toFixed(2)} recall_at_${NEAREST_GROUPS}=${recall.toFixed(3)} nearest_p50_us=${percentile(nearestUs, 0.5).toFixed(0)}`,
  );
  console.log(
    `profiles_s=${big.profilesS.toFixed(1)} index_s=${big.indexS.toFixed(1)} load_cpu_s=${big.cpuS.toFixed(1)} lists=${Math.round(Math.sqrt(big.index.size))} load_average=${loadavg()[0].toFixed(1)}`,
  );
  console.log(
    `bytes_per_group=${heapPerGroup.toFixed(0)} (heap and array buffers after - before, with the ads' own fields) profile_bytes_per_group=${profileBytes(big.ads).toFixed(0)} index_bytes_per_group=${(big.index.nearestBytes / GROUPS).toFixed(0)} heap_mb=${mb(after.heapUsed - before.heapUsed)} array_buffers_mb=${mb(after.arrayBuffers - before.arrayBuffers)}`,
  );
  console.log(
    `inhouse_scale ad_groups=${GROUPS} p50_us=${p50.toFixed(0)} p99_us=${p99.toFixed(0)} load_s=${(big.profilesS + big.indexS).toFixed(1)} rss_mb=${mb(after.rss - before.rss)}`,
  );
}

// Run as a script (tuning scripts import the generators).
if (/inhouse-scale\.ts$/.test(process.argv[1] ?? '')) void main();
