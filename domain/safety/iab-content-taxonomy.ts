/**
 * The rows of the IAB Tech Lab Content Taxonomy 3.0 that the sensitive
 * categories (categories.ts) point at, with their ancestors, copied verbatim
 * (id, parent id, name) from InteractiveAdvertisingBureau/Taxonomies,
 * "Content Taxonomies/Content Taxonomy 3.0.tsv" at commit
 * 05de1d9dd58faf8a86426bba2bc0579d1e773bd1 (2025-08-12).
 *
 * OpenRTB carries these ids in site.cat / app.cat with cattax 7: AdCOM 1.0,
 * "List: Category Taxonomies" (InteractiveAdvertisingBureau/AdCOM,
 * "AdCOM v1.0 FINAL.md"), value 7 = "IAB Tech Lab Content Taxonomy 3.0".
 * The spec (3-dsp-integration.md) sends tier-1 ids only, "numeric or six
 * short alphanumeric ones" (3.0's new ids such as v9i3On).
 */

export const CONTENT_TAXONOMY_CATTAX = 7;

export interface ContentTaxonomyRow {
  id: string;
  /** Parent id; absent on a tier-1 row. */
  parent?: string;
  name: string;
}

export const CONTENT_TAXONOMY_3_ROWS: readonly ContentTaxonomyRow[] = [
  { id: '150', name: 'Attractions' },
  { id: '181', parent: '150', name: 'Casinos & Gambling' },
  { id: '186', name: 'Family and Relationships' },
  { id: '192', parent: '186', name: 'Parenting' },
  { id: '286', name: 'Medical Health' },
  { id: '287', parent: '286', name: 'Diseases and Conditions' },
  { id: '298', parent: '287', name: 'Injuries' },
  { id: '301', parent: '287', name: 'Mental Health' },
  { id: '311', parent: '287', name: 'Substance Abuse' },
  { id: '381', name: 'Disasters' },
  { id: '386', name: 'Politics' },
  { id: '387', parent: '386', name: 'Elections' },
  { id: '388', parent: '386', name: 'Political Issues & Policy' },
  // "Sensitive Topics" and its children are GARM's brand-safety categories (Content Taxonomy 2.2+).
  { id: 'v9i3On', name: 'Sensitive Topics' },
  { id: 'Rm3SiT', parent: 'v9i3On', name: 'Adult & Explicit Sexual Content' },
  { id: 'XtODT3', parent: 'v9i3On', name: 'Crime & Harmful Acts to Individuals, Society & Human Right Violations' },
  { id: 'I4GWl6', parent: 'v9i3On', name: 'Death, Injury, or Military Conflict' },
  { id: 'HxqYV1', parent: 'v9i3On', name: 'Hate Speech and Acts of Aggression' },
  { id: 'pg0WhF', parent: 'v9i3On', name: 'Illegal Drugs, Tobacco, eCigarettes, Vaping, Alcohol' },
  { id: '8FD8nI', parent: 'v9i3On', name: 'Terrorism' },
];

const byId = new Map(CONTENT_TAXONOMY_3_ROWS.map((row) => [row.id, row]));

export const contentTaxonomyRow = (id: string): ContentTaxonomyRow | undefined => byId.get(id);

/** The tier-1 ancestor of a row (itself when it is tier 1). */
export function tierOneOf(id: string): string | undefined {
  let row = byId.get(id);
  while (row?.parent !== undefined) row = byId.get(row.parent);
  return row?.id;
}
