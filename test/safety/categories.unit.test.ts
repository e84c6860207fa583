/**
 * The category table: IAB Content Taxonomy 3.0 ids (cattax 7) for site.cat,
 * default policies, and what a publisher may change.
 */
import { CATEGORY_TABLE, SENSITIVE_CATEGORIES } from '../../domain/safety/categories';
import { CONTENT_TAXONOMY_CATTAX, contentTaxonomyRow, tierOneOf } from '../../domain/safety/iab-content-taxonomy';
import { policyOf, safetyDecision } from '../../domain/safety/policy';

/** The auction's request schema accepts these (auction/request-schema.ts, site.cat). */
const CAT_ID = /^([0-9]+|[A-Za-z0-9]{6})$/;

describe('IAB Content Taxonomy 3.0 ids', () => {
  test('cattax is 7 (AdCOM: Content Taxonomy 3.0)', () => {
    expect(CONTENT_TAXONOMY_CATTAX).toBe(7);
  });

  test.each(SENSITIVE_CATEGORIES.map((c) => [c]))('%s sends tier-1 ids that its detailed ids descend from', (category) => {
    const { siteCat, detail } = CATEGORY_TABLE[category];
    expect(siteCat.length).toBeGreaterThan(0);
    const ancestors = new Set(detail.map((id) => tierOneOf(id)));
    for (const id of siteCat) {
      expect(id).toMatch(CAT_ID);
      expect(contentTaxonomyRow(id)?.parent).toBeUndefined();
      expect(ancestors.has(id)).toBe(true);
    }
    for (const id of detail) expect(contentTaxonomyRow(id)).toBeDefined();
  });

  test('the sensitive categories point at the taxonomy rows that name them', () => {
    expect(contentTaxonomyRow('v9i3On')?.name).toBe('Sensitive Topics');
    expect(CATEGORY_TABLE.sexual.detail).toContain('Rm3SiT');
    expect(contentTaxonomyRow('Rm3SiT')?.name).toBe('Adult & Explicit Sexual Content');
    expect(CATEGORY_TABLE.hate_harassment.detail).toEqual(['HxqYV1']);
    expect(CATEGORY_TABLE.illegal_drugs.detail).toContain('pg0WhF');
    expect(CATEGORY_TABLE.politics.siteCat).toEqual(['386']);
    expect(CATEGORY_TABLE.self_harm.detail).toContain('301');
    expect(contentTaxonomyRow('301')?.name).toBe('Mental Health');
  });
});

describe('policies', () => {
  test("the issue's never categories are never; the others block by default", () => {
    const never = SENSITIVE_CATEGORIES.filter((c) => CATEGORY_TABLE[c].defaultPolicy === 'never');
    expect(never.sort()).toEqual(['mental_health_crisis', 'minors', 'self_harm', 'sexual']);
    for (const c of SENSITIVE_CATEGORIES) if (!never.includes(c)) expect(CATEGORY_TABLE[c].defaultPolicy).toBe('block');
  });

  test('a publisher may allow a block category but never relax a never one', () => {
    expect(policyOf('politics')).toBe('block');
    expect(policyOf('politics', { politics: 'allow' })).toBe('allow');
    expect(policyOf('self_harm', { self_harm: 'allow' })).toBe('never');
    expect(policyOf('sexual', { sexual: 'block' })).toBe('never');
  });

  test("the strictest policy decides, and site.cat holds each category's tier-1 ids once", () => {
    expect(safetyDecision([])).toEqual({ policy: 'allow', siteCat: [] });
    expect(safetyDecision(['politics', 'gambling_problems'], { politics: 'allow', gambling_problems: 'allow' })).toEqual({
      policy: 'allow',
      siteCat: ['386', '286'],
    });
    expect(safetyDecision(['illegal_drugs', 'politics'], { politics: 'allow' })).toEqual({ policy: 'block', siteCat: ['v9i3On', '286', '386'] });
    expect(safetyDecision(['violence_tragedy', 'self_harm'], { violence_tragedy: 'allow' }).policy).toBe('never');
  });
});
