/**
 * The sensitive-conversation categories: our code, the IAB Content Taxonomy
 * 3.0 ids (iab-content-taxonomy.ts) and the default policy of each.
 *
 * Policies:
 *   never  no auction at all: no DSP and no in-house bidder is called; a
 *          publisher cannot relax it.
 *   block  no ad by default; a publisher may allow the category.
 *   allow  the auction runs; the category's tier-1 ids go to DSPs in
 *          site.cat / app.cat (cattax 7) so they can apply their own rules.
 *
 * | code                 | site.cat (tier 1) | detail (3.0)           | default | what it covers |
 * |----------------------|-------------------|------------------------|---------|----------------|
 * | self_harm            | v9i3On, 286       | I4GWl6, 301            | never   | suicide, self-injury, intent, plans or methods, in any person |
 * | mental_health_crisis | 286               | 301                    | never   | acute distress: panic, psychosis, breakdown, dissociation, eating-disorder crisis, despair |
 * | sexual               | v9i3On            | Rm3SiT                 | never   | explicit sexual content, pornography, sex work, adult products |
 * | minors               | v9i3On, 186       | XtODT3, 192            | never   | a user who is a child, or harm to children (abuse, grooming, exploitation); a parent shopping for a child is not |
 * | medical_emergency    | 286               | 287, 298               | block   | emergencies happening now, serious or terminal illness, intensive or end-of-life care |
 * | hate_harassment      | v9i3On            | HxqYV1                 | block   | slurs, dehumanizing a group, bullying, stalking, doxxing, threats |
 * | violence_tragedy     | v9i3On, 381       | I4GWl6, XtODT3, 8FD8nI, 381 | block | attacks, killings, abuse, war, terrorism, disasters, sudden deaths and grief |
 * | illegal_drugs        | v9i3On, 286       | pg0WhF, 311            | block   | buying, using or dosing illegal drugs, diverted prescriptions, addiction |
 * | politics             | 386               | 387, 388               | block   | elections, voting, candidates, parties, legislation, debated policy |
 * | gambling_problems    | 286               | 301, 181               | block   | problem gambling: losses, debts, chasing, addiction, self-exclusion (not gambling as a hobby) |
 *
 * Decisions recorded here so the labelled set and the lexicon agree:
 * alcohol and gambling as a pastime are ordinary commerce; "election of a new
 * CEO" is not politics; grief over a death is violence_tragedy ("tragedy");
 * mild stress or anxiety with a shopping question is ordinary commerce.
 */

export const SAFETY_POLICIES = ['never', 'block', 'allow'] as const;
export type SafetyPolicy = (typeof SAFETY_POLICIES)[number];

export const SENSITIVE_CATEGORIES = [
  'self_harm',
  'mental_health_crisis',
  'sexual',
  'minors',
  'medical_emergency',
  'hate_harassment',
  'violence_tragedy',
  'illegal_drugs',
  'politics',
  'gambling_problems',
] as const;
export type SensitiveCategory = (typeof SENSITIVE_CATEGORIES)[number];

export interface SensitiveCategoryInfo {
  code: SensitiveCategory;
  description: string;
  defaultPolicy: SafetyPolicy;
  /** Tier-1 Content Taxonomy 3.0 ids sent in site.cat / app.cat (the spec sends tier 1 only). */
  siteCat: readonly string[];
  /** The most specific 3.0 ids for the category; their tier-1 ancestors are what siteCat may hold. */
  detail: readonly string[];
}

export const CATEGORY_TABLE: Readonly<Record<SensitiveCategory, SensitiveCategoryInfo>> = {
  self_harm: {
    code: 'self_harm',
    description: 'Suicide and self-injury: ideation, intent, plans or methods, about the user or someone else.',
    defaultPolicy: 'never',
    siteCat: ['v9i3On', '286'],
    detail: ['I4GWl6', '301'],
  },
  mental_health_crisis: {
    code: 'mental_health_crisis',
    description: 'Acute mental distress: panic attacks, psychosis, breakdowns, dissociation, eating-disorder crises, hopelessness.',
    defaultPolicy: 'never',
    siteCat: ['286'],
    detail: ['301'],
  },
  sexual: {
    code: 'sexual',
    description: 'Explicit sexual content, pornography, sexting, sex work and adult products.',
    defaultPolicy: 'never',
    siteCat: ['v9i3On'],
    detail: ['Rm3SiT'],
  },
  minors: {
    code: 'minors',
    description: 'A user who is a child, or harm to children (abuse, grooming, exploitation); not a parent shopping for a child.',
    defaultPolicy: 'never',
    siteCat: ['v9i3On', '186'],
    detail: ['XtODT3', '192'],
  },
  medical_emergency: {
    code: 'medical_emergency',
    description: 'A medical emergency happening now, or serious or terminal illness, intensive or end-of-life care.',
    defaultPolicy: 'block',
    siteCat: ['286'],
    detail: ['287', '298'],
  },
  hate_harassment: {
    code: 'hate_harassment',
    description: 'Slurs, dehumanizing a group, bullying, stalking, doxxing and threats, whether said or suffered.',
    defaultPolicy: 'block',
    siteCat: ['v9i3On'],
    detail: ['HxqYV1'],
  },
  violence_tragedy: {
    code: 'violence_tragedy',
    description: 'Attacks, killings, domestic abuse, war, terrorism, disasters, sudden deaths and grief.',
    defaultPolicy: 'block',
    siteCat: ['v9i3On', '381'],
    detail: ['I4GWl6', 'XtODT3', '8FD8nI', '381'],
  },
  illegal_drugs: {
    code: 'illegal_drugs',
    description: 'Buying, using or dosing illegal drugs or diverted prescriptions, and drug addiction.',
    defaultPolicy: 'block',
    siteCat: ['v9i3On', '286'],
    detail: ['pg0WhF', '311'],
  },
  politics: {
    code: 'politics',
    description: 'Elections, voting, candidates and parties, legislation and debated policy.',
    defaultPolicy: 'block',
    siteCat: ['386'],
    detail: ['387', '388'],
  },
  gambling_problems: {
    code: 'gambling_problems',
    description: 'Problem gambling: losses, debts, chasing losses, addiction, self-exclusion; not gambling as a pastime.',
    defaultPolicy: 'block',
    // Casinos & Gambling (181) sits under Attractions (150), a venue category
    // that would tell a DSP nothing about harm: only Medical Health is sent.
    siteCat: ['286'],
    detail: ['301', '181'],
  },
};

export const isSensitiveCategory = (value: string): value is SensitiveCategory => (SENSITIVE_CATEGORIES as readonly string[]).includes(value);
