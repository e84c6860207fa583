import { ConversationReader, normalizeWords, type ConversationView } from '../../domain/understanding/conversation';
import { dot, textEncoder, type TextEncoder } from '../../domain/understanding/encoder';
import { relevanceProfile, type ProfileSource, type RelevanceProfile } from '../../domain/relevance/profile';

/**
 * The in-house bidder's side of relevance (docs/relevance.md): the auction
 * process's one text encoder and conversation reader (its message cache is
 * what a conversation's later requests reuse), ad groups' profiles made at
 * index load, and the retrieval of the few ad groups worth scoring.
 */
let reader: ConversationReader | undefined;
let encoder: TextEncoder | undefined;

function sharedEncoder(): TextEncoder {
  return (encoder ??= textEncoder());
}

/** The conversation as the relevance model reads it (each message analysed once per process). */
export function readConversation(messages: readonly { role: string; content: string }[]): ConversationView {
  return (reader ??= new ConversationReader(sharedEncoder())).read(messages);
}

/** An ad group's profile; `shared` keeps one per ad group across its ads within one index load. */
export function profileOf(adGroupId: string, source: ProfileSource, shared: Map<string, RelevanceProfile>): RelevanceProfile {
  let profile = shared.get(adGroupId);
  if (!profile) {
    profile = relevanceProfile(sharedEncoder(), source);
    shared.set(adGroupId, profile);
  }
  return profile;
}

/** How many ad groups, nearest to the conversation, are scored beyond those a hint names outright. */
export const NEAREST_GROUPS = 64;

interface Retrievable {
  relevance: RelevanceProfile;
}

/**
 * The ads whose ad groups are worth scoring for a conversation: the
 * NEAREST_GROUPS groups whose topic vectors are nearest the latest exchange,
 * and every group one of whose hints' first word occurs in it. Built once per
 * index (a reload builds a new one); a group's ads stay together.
 */
export class RelevanceIndex<T extends Retrievable> {
  private readonly groups: T[][] = [];
  private readonly topics: Float32Array;
  private readonly byWord = new Map<string, number[]>();
  private readonly dims: number;

  constructor(ads: readonly T[]) {
    const slot = new Map<RelevanceProfile, number>();
    for (const ad of ads) {
      let i = slot.get(ad.relevance);
      if (i === undefined) {
        i = this.groups.length;
        slot.set(ad.relevance, i);
        this.groups.push([]);
        for (const phrase of ad.relevance.phrases) {
          const first = phrase.split(' ')[0];
          const list = this.byWord.get(first) ?? [];
          if (list[list.length - 1] !== i) list.push(i);
          this.byWord.set(first, list);
        }
      }
      this.groups[i].push(ad);
    }
    this.dims = ads[0]?.relevance.topic.length ?? 0;
    this.topics = new Float32Array(this.groups.length * this.dims);
    this.groups.forEach((g, i) => this.topics.set(g[0].relevance.topic, i * this.dims));
  }

  get size(): number {
    return this.groups.length;
  }

  /** The candidate ads for this conversation. */
  candidates(view: ConversationView): T[] {
    const chosen = new Set<number>();
    for (const word of normalizeWords(view.recentText).split(' ')) for (const i of this.byWord.get(word) ?? []) chosen.add(i);
    for (const i of this.nearest(view.recent, NEAREST_GROUPS)) chosen.add(i);
    const out: T[] = [];
    for (const i of chosen) out.push(...this.groups[i]);
    return out;
  }

  /** The k groups whose topics are nearest `v` (a bounded min-heap over one pass of dot products). */
  private nearest(v: Float32Array, k: number): number[] {
    const n = this.groups.length;
    if (n <= k) return [...Array(n).keys()];
    const scores = new Float32Array(k).fill(-Infinity);
    const ids = new Int32Array(k).fill(-1);
    const dims = this.dims;
    const topics = this.topics;
    for (let i = 0; i < n; i++) {
      const s = dot(v, topics.subarray(i * dims, (i + 1) * dims));
      if (s <= scores[0]) continue;
      // Replace the heap's minimum and sift down.
      scores[0] = s;
      ids[0] = i;
      let at = 0;
      for (;;) {
        const l = 2 * at + 1;
        const r = l + 1;
        let min = at;
        if (l < k && scores[l] < scores[min]) min = l;
        if (r < k && scores[r] < scores[min]) min = r;
        if (min === at) break;
        [scores[at], scores[min]] = [scores[min], scores[at]];
        [ids[at], ids[min]] = [ids[min], ids[at]];
        at = min;
      }
    }
    return [...ids].filter((i) => i >= 0);
  }
}

const indexes = new WeakMap<readonly Retrievable[], RelevanceIndex<Retrievable>>();

/** The index of this very array of ads (the catalog replaces the array on every reload). */
export function relevanceIndexOf<T extends Retrievable>(ads: readonly T[]): RelevanceIndex<T> {
  let index = indexes.get(ads) as RelevanceIndex<T> | undefined;
  if (!index) {
    index = new RelevanceIndex(ads);
    indexes.set(ads, index);
  }
  return index;
}
