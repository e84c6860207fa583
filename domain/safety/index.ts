/**
 * The safety classifier's one entry: what the rest of the code imports.
 * `classify(messages)` is the auction's whole screen on a conversation (the
 * categories found and, with a publisher's overrides, the policy that decides,
 * the categories that refuse, the ids for DSPs); `explain` is the same decision
 * with its evidence, for an operator (`adctl safety explain`): the verdict
 * through exactly that call, then every cue with the message it was found in,
 * the model's scores per category, the thresholds the rule applies.
 * The lexicons, the learned scorer and its weights stay inside this folder;
 * its training tools (training/) are outside the runtime's imports (layers.json).
 * How it works and how well: domain/safety/README.md.
 */
import { CATEGORY_TABLE, SENSITIVE_CATEGORIES, type SafetyPolicy, type SensitiveCategory } from './categories';
import {
  classifyConversation,
  DETECTION_THRESHOLD,
  explainConversation,
  MODEL_RULE,
  NEVER_LOOKBACK_MESSAGES,
  RECENT_MESSAGES,
  type ConversationMessage,
  type DecidedBy,
} from './classifier/classifier';
import { policyOf, screenCategories, type PublisherSafetyOverrides, type ScreenVerdict } from './policy';

export { CATEGORY_TABLE, SENSITIVE_CATEGORIES, type SafetyPolicy, type SensitiveCategory } from './categories';
export { CONTENT_TAXONOMY_CATTAX } from './iab-content-taxonomy';
export type { PublisherSafetyOverrides } from './policy';
export type { ConversationMessage } from './classifier/classifier';

export interface ScreenResult extends ScreenVerdict {
  /** Every category found, allowed ones included (they go to DSPs as siteCat). */
  categories: SensitiveCategory[];
}

/** What the auction decides for these messages (the request's window) and this publisher. */
export function classify(messages: readonly ConversationMessage[], overrides?: PublisherSafetyOverrides): ScreenResult {
  const { categories } = classifyConversation(messages);
  return { categories, ...screenCategories(categories, overrides) };
}

export interface CategoryExplanation {
  /** This publisher's policy for the category. */
  policy: SafetyPolicy;
  detected: boolean;
  decided_by: DecidedBy | null;
  lexicon_score: number;
  model: number;
  /** The model's bars for this category: alone (null: not without evidence) and with a cue of its own. */
  model_alone_at: number | null;
  model_with_cue_at: number;
}

export interface ScreenExplanation {
  verdict: SafetyPolicy;
  no_fill_reason: 'sensitive_conversation' | null;
  categories: SensitiveCategory[];
  refused: SensitiveCategory[];
  site_cat: string[];
  messages: { given: number; read: number; recent: number };
  /** A cue a reader can see besides the model's words: a `never` category needs one (MODEL_RULE.minEvidence). */
  evidence: boolean;
  cues: { category: string; pattern: string; weight: number; message: number; role: ConversationMessage['role']; text: string; negated: boolean }[];
  per_category: Record<SensitiveCategory, CategoryExplanation>;
  thresholds: {
    lexicon_detects_at: number;
    model_needs_cue_score: number;
    evidence_cue_score: number;
    veto_block_under_model: number;
    veto_block_below_lexicon_score: number;
  };
}

/** `messages` is what the auction screens (the request's window); `given`, how many messages the request held. */
export function explain(messages: readonly ConversationMessage[], overrides?: PublisherSafetyOverrides, given = messages.length): ScreenExplanation {
  const verdict = classify(messages, overrides);
  const explained = explainConversation(messages);
  // The explanation reads every message afresh (no cache); the verdict is the auction's. They must agree.
  if (explained.categories.join() !== verdict.categories.join())
    throw new Error(`the explanation found ${explained.categories.join(', ') || 'nothing'}, the screen ${verdict.categories.join(', ') || 'nothing'}`);
  const evidence = explained.evidence;
  const per = Object.fromEntries(
    SENSITIVE_CATEGORIES.map((c): [SensitiveCategory, CategoryExplanation] => {
      const never = CATEGORY_TABLE[c].defaultPolicy === 'never';
      return [
        c,
        {
          policy: policyOf(c, overrides),
          detected: verdict.categories.includes(c),
          decided_by: explained.decidedBy[c] ?? null,
          lexicon_score: explained.scores[c],
          model: explained.model[c],
          model_alone_at: never ? (evidence ? MODEL_RULE.neverAlone : null) : MODEL_RULE.alone,
          model_with_cue_at: never ? MODEL_RULE.neverWithCue : MODEL_RULE.withCue,
        },
      ];
    }),
  ) as Record<SensitiveCategory, CategoryExplanation>;
  return {
    verdict: verdict.policy,
    no_fill_reason: verdict.policy === 'allow' ? null : 'sensitive_conversation',
    categories: verdict.categories,
    refused: verdict.refused,
    site_cat: verdict.siteCat,
    messages: { given, read: Math.min(messages.length, NEVER_LOOKBACK_MESSAGES), recent: Math.min(messages.length, RECENT_MESSAGES) },
    evidence,
    cues: explained.matches.map((m) => ({ ...m, role: messages[m.message].role })),
    per_category: per,
    thresholds: {
      lexicon_detects_at: DETECTION_THRESHOLD,
      model_needs_cue_score: MODEL_RULE.minCueScore,
      evidence_cue_score: MODEL_RULE.minEvidence,
      veto_block_under_model: MODEL_RULE.vetoUnder,
      veto_block_below_lexicon_score: MODEL_RULE.vetoBelowScore,
    },
  };
}
