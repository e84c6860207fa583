import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ConversationReader } from '../../domain/understanding/conversation';
import type { TextEncoder } from '../../domain/understanding/encoder';
import { relevanceProfile, type RelevanceProfile } from '../../domain/relevance/profile';
import { adCopy } from '../../domain/relevance/ranking';
import { featuresOf, userWordsOf, type Features } from '../../domain/relevance/score';

/** The labelled set (bench/relevance/README.md), read and scored pair by pair. */
export interface LabelledGroup {
  id: string;
  context_hints: string[];
  creative: { title: string; body?: string };
}
export interface LabelledConversation {
  id: string;
  kind: string[];
  language: string;
  messages: { role: 'user' | 'assistant'; content: string }[];
  relevant: string[];
}

export const DATA_DIR = __dirname;

export function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(path.isAbsolute(file) ? file : path.join(DATA_DIR, file), 'utf8')) as T;
}

/** What an ad group's copy is, for its profile: the title and body of its ad. */
export const copyOf = (g: LabelledGroup) => adCopy(g.creative);

export interface Pair {
  conversation: number;
  group: number;
  features: Features;
  relevant: boolean;
}

export function profilesOf(encoder: TextEncoder, groups: readonly LabelledGroup[]): RelevanceProfile[] {
  return groups.map((g) => relevanceProfile(encoder, { hints: g.context_hints, copy: copyOf(g) }));
}

/** Every (conversation, group) pair's features. */
export function pairsOf(encoder: TextEncoder, groups: readonly LabelledGroup[], conversations: readonly LabelledConversation[]): Pair[] {
  const profiles = profilesOf(encoder, groups);
  const reader = new ConversationReader(encoder);
  const pairs: Pair[] = [];
  conversations.forEach((c, ci) => {
    const view = reader.read(c.messages);
    const relevant = new Set(c.relevant);
    profiles.forEach((p, gi) => pairs.push({ conversation: ci, group: gi, features: featuresOf(view, p), relevant: relevant.has(groups[gi].id) }));
  });
  return pairs;
}

/** What the need model (domain/relevance/score.ts, needOf) reads of each conversation, and whether any group fits it. */
export function needInputsOf(encoder: TextEncoder, conversations: readonly LabelledConversation[]): { words: Set<string>; has: boolean }[] {
  const reader = new ConversationReader(encoder);
  return conversations.map((c) => ({ words: userWordsOf(reader.read(c.messages)), has: c.relevant.length > 0 }));
}

export interface Figures {
  conversations: number;
  precision: number;
  recall: number;
  top1: number;
  served: number;
  false_serve: number;
}

/**
 * The figures from scored pairs: precision and recall of the pairs let
 * through (score >= min), top1 (the highest-scoring group is a relevant one, among
 * conversations that have one), served (... and it passes, so its ad may serve),
 * false_serve (some group passes in a conversation where none fits).
 */
export function figuresOf(scored: { conversation: number; score: number; relevant: boolean }[], min: number): Figures {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  const best = new Map<number, { score: number; relevant: boolean }>();
  const hasRelevant = new Set<number>();
  for (const s of scored) {
    if (s.relevant) hasRelevant.add(s.conversation);
    if (s.score >= min) {
      if (s.relevant) tp += 1;
      else fp += 1;
    } else if (s.relevant) fn += 1;
    const b = best.get(s.conversation);
    if (!b || s.score > b.score) best.set(s.conversation, s);
  }
  let top = 0;
  let served = 0;
  let falseServe = 0;
  let none = 0;
  for (const [c, b] of best) {
    if (hasRelevant.has(c)) {
      if (b.relevant) top += 1;
      if (b.relevant && b.score >= min) served += 1;
    } else {
      none += 1;
      if (b.score >= min) falseServe += 1;
    }
  }
  return {
    conversations: best.size,
    precision: tp / Math.max(1, tp + fp),
    recall: tp / Math.max(1, tp + fn),
    top1: top / Math.max(1, hasRelevant.size),
    served: served / Math.max(1, hasRelevant.size),
    false_serve: falseServe / Math.max(1, none),
  };
}
