import { ConversationReader, hasPhrase, type ConversationView } from '../../domain/understanding/conversation';
import { dot, textEncoder, type TextEncoder } from '../../domain/understanding/encoder';
import { IvfIndex } from '../../lib/ivf-index';
import { relevanceProfile, type ProfileSource, type RelevanceProfile } from '../../domain/relevance/profile';
import { noteRecentSimilarity } from '../../domain/relevance/score';

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

/** What one index load shares: a profile per ad group across its ads, a vector per recurring text across groups. */
export interface ProfileCache {
  groups: Map<string, RelevanceProfile>;
  texts: Map<string, Float32Array>;
}

export const newProfileCache = (): ProfileCache => ({ groups: new Map(), texts: new Map() });

/** An ad group's profile, one per ad group within one index load. */
export function profileOf(adGroupId: string, source: ProfileSource, shared: ProfileCache): RelevanceProfile {
  let profile = shared.groups.get(adGroupId);
  if (!profile) {
    profile = relevanceProfile(sharedEncoder(), source, shared.texts);
    shared.groups.set(adGroupId, profile);
  }
  return profile;
}

/**
 * How many ad groups, nearest to the conversation, are scored beyond those a
 * hint names outright. On the labelled set every group that passes the bar is
 * named or among the 8 nearest; the rest of the room is for a large catalog's
 * near twins and for groups that cannot serve now (a paused ad, a flight not
 * started), which retrieval does not know of.
 */
export const NEAREST_GROUPS = 64;
/**
 * At most this many of the groups hints name outright are scored (the nearest of
 * them). A hint that more groups share ("running shoes" in a large catalog) names
 * none: its groups are found by the nearest-groups search like any other, so a
 * request never walks a popular hint's thousands of groups.
 */
export const NAMED_GROUPS = 64;

interface Retrievable {
  relevance: RelevanceProfile;
}

/**
 * The ads whose ad groups are worth scoring for a conversation: the
 * NEAREST_GROUPS groups whose topic vectors are nearest the latest exchange
 * (an approximate nearest-neighbour index, lib/ivf-index.ts: a request's cost
 * grows with the square root of the catalog, not with the catalog), and every
 * group one of whose hints occurs whole in it (looked up by the hint's first
 * word). Built once per index (a reload builds a new one, off the event loop's
 * critical path: buildRelevanceIndex); a group's ads stay together.
 */
export class RelevanceIndex<T extends Retrievable> {
  private readonly groups: T[][] = [];
  /** A hint's first word -> the hint -> the groups that have it. */
  private readonly byWord = new Map<string, Map<string, number[]>>();
  private nearestGroups: IvfIndex | undefined;

  /** `nearest: 'later'` leaves the nearest-neighbour index to RelevanceIndex.build. */
  constructor(ads: readonly T[], nearest: 'now' | 'later' = 'now') {
    const slot = new Map<RelevanceProfile, number>();
    for (const ad of ads) {
      let i = slot.get(ad.relevance);
      if (i === undefined) {
        i = this.groups.length;
        slot.set(ad.relevance, i);
        this.groups.push([]);
        for (const phrase of ad.relevance.phrases) {
          const first = phrase.split(' ')[0];
          let phrases = this.byWord.get(first);
          if (!phrases) this.byWord.set(first, (phrases = new Map<string, number[]>()));
          const list = phrases.get(phrase) ?? [];
          if (list[list.length - 1] !== i) list.push(i);
          phrases.set(phrase, list);
        }
      }
      this.groups[i].push(ad);
    }
    if (nearest === 'now') this.nearestGroups = IvfIndex.buildSync(this.topics());
  }

  /** Built in slices with turns of the event loop between them (the auction reloads its index while serving). */
  static async build<T extends Retrievable>(ads: readonly T[]): Promise<RelevanceIndex<T>> {
    const index = new RelevanceIndex(ads, 'later');
    // A reload of part of the catalog keeps the other groups' profiles: the last build's lists are reused for them.
    index.nearestGroups = lastBuilt = await IvfIndex.buildAsync(index.topics(), {}, lastBuilt);
    return index;
  }

  get size(): number {
    return this.groups.length;
  }

  /** Bytes of the nearest-neighbour index (beyond the profiles it points at). */
  get nearestBytes(): number {
    return this.nearestGroups?.bytes ?? 0;
  }

  /** The candidate ads for this conversation. */
  candidates(view: ConversationView): T[] {
    const chosen = new Set<number>(this.named(view.recentText));
    if (chosen.size > NAMED_GROUPS) {
      // Many hints named: the groups whose topics are nearest the exchange are scored (a dot product each, not a score).
      const scored = [...chosen].map((i) => [dot(view.recent, this.groups[i][0].relevance.topic), i] as const);
      scored.sort((a, b) => b[0] - a[0]);
      chosen.clear();
      for (const [, i] of scored.slice(0, NAMED_GROUPS)) chosen.add(i);
    }
    const { ids, similarities } = this.nearestGroups!.nearestScored(view.recent, NEAREST_GROUPS);
    ids.forEach((i, j) => {
      chosen.add(i);
      // Scoring reads the similarity the search computed from its own copy (no second read of a cold vector).
      noteRecentSimilarity(view, this.groups[i][0].relevance.topic, similarities[j]);
    });
    const out: T[] = [];
    for (const i of chosen) out.push(...this.groups[i]);
    return out;
  }

  /** The k groups whose topics are nearest `v`, nearest first. */
  nearest(v: Float32Array, k: number): number[] {
    return this.nearestGroups!.nearest(v, k);
  }

  /** The groups one of whose hints occurs whole in `text` (normalized words; a last word also in its plural). */
  private named(text: string): Set<number> {
    const out = new Set<number>();
    const seen = new Set<string>();
    for (const word of text.split(' ')) {
      // A one-word hint's word is also its last: "shoe" is named by "shoes".
      const forms = word.endsWith('es') ? [word, word.slice(0, -1), word.slice(0, -2)] : word.endsWith('s') ? [word, word.slice(0, -1)] : [word];
      for (const form of forms) {
        if (seen.has(form)) continue;
        seen.add(form);
        for (const [phrase, groups] of this.byWord.get(form) ?? [])
          if (groups.length <= NAMED_GROUPS && hasPhrase(text, phrase)) for (const i of groups) out.add(i);
      }
    }
    return out;
  }

  private topics(): Float32Array[] {
    return this.groups.map((g) => g[0].relevance.topic);
  }
}

/** The process's last nearest-neighbour index built for a load (a scoped reload's base). */
let lastBuilt: IvfIndex | undefined;

const indexes = new WeakMap<readonly Retrievable[], RelevanceIndex<Retrievable>>();

/** The index of this very array of ads (the catalog replaces the array on every reload); built now if it was not loaded. */
export function relevanceIndexOf<T extends Retrievable>(ads: readonly T[]): RelevanceIndex<T> {
  let index = indexes.get(ads) as RelevanceIndex<T> | undefined;
  if (!index) {
    index = new RelevanceIndex(ads);
    indexes.set(ads, index);
  }
  return index;
}

/** Builds the index of this array of ads without holding the event loop; relevanceIndexOf(ads) then finds it. */
export async function loadRelevanceIndex<T extends Retrievable>(ads: readonly T[]): Promise<RelevanceIndex<T>> {
  const index = await RelevanceIndex.build(ads);
  indexes.set(ads, index);
  return index;
}
