/**
 * What a publisher's auction does with the categories the classifier found:
 * the strictest policy among them decides, and the tier-1 ids of the
 * categories go to DSPs when the auction runs.
 */
import { CATEGORY_TABLE, type SafetyPolicy, type SensitiveCategory } from './categories';

/** A publisher's choices: `block` categories may be allowed, `allow` ones blocked; `never` stays never. */
export type PublisherSafetyOverrides = Partial<Record<SensitiveCategory, 'block' | 'allow'>>;

const STRICTNESS: Record<SafetyPolicy, number> = { allow: 0, block: 1, never: 2 };

export function policyOf(category: SensitiveCategory, overrides?: PublisherSafetyOverrides): SafetyPolicy {
  const fallback = CATEGORY_TABLE[category].defaultPolicy;
  if (fallback === 'never') return 'never';
  return overrides?.[category] ?? fallback;
}

export interface SafetyDecision {
  /** `never`: call no bidder; `block`: no ad (no_fill_reason sensitive_conversation); `allow`: run the auction. */
  policy: SafetyPolicy;
  /** Tier-1 Content Taxonomy 3.0 ids for site.cat / app.cat (cattax 7), in the order of the categories given, no repeats. */
  siteCat: string[];
}

export function safetyDecision(categories: readonly SensitiveCategory[], overrides?: PublisherSafetyOverrides): SafetyDecision {
  let policy: SafetyPolicy = 'allow';
  const siteCat: string[] = [];
  for (const category of categories) {
    const own = policyOf(category, overrides);
    if (STRICTNESS[own] > STRICTNESS[policy]) policy = own;
    for (const id of CATEGORY_TABLE[category].siteCat) if (!siteCat.includes(id)) siteCat.push(id);
  }
  return { policy, siteCat };
}

export interface ScreenVerdict extends SafetyDecision {
  /** The categories that refuse the ad (those not `allow` for this publisher); empty when the auction runs. */
  refused: SensitiveCategory[];
}

/** The auction's screen (auction/publisher/screen.ts) on the categories found: its policy, the categories that refused, the ids for DSPs. */
export function screenCategories(categories: readonly SensitiveCategory[], overrides?: PublisherSafetyOverrides): ScreenVerdict {
  const decision = safetyDecision(categories, overrides);
  const refused = decision.policy === 'allow' ? [] : categories.filter((c) => policyOf(c, overrides) !== 'allow');
  return { ...decision, refused };
}
