import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * IAB Tech Lab Content Taxonomy 3.0, whole, as published: data/content-taxonomy-3.0.tsv
 * is "Content Taxonomies/Content Taxonomy 3.0.tsv" of InteractiveAdvertisingBureau/Taxonomies
 * at commit 05de1d9dd58faf8a86426bba2bc0579d1e773bd1 (2025-08-12), unchanged (CC BY 3.0).
 * OpenRTB carries its ids with cattax 7.
 */
export interface ContentCategory {
  id: string;
  parent: string | null;
  name: string;
  /** 1 for a top-level category. */
  tier: number;
  /** The names from tier 1 down to this one ("Sports", "Running and Jogging"). */
  path: string[];
}

const FILE = path.join(__dirname, 'data', 'content-taxonomy-3.0.tsv');

let loaded: ContentCategory[] | undefined;

export function contentTaxonomy(): readonly ContentCategory[] {
  if (loaded) return loaded;
  // Two header lines, then: id, parent, name, tier 1..4 names, extension. No quoting in the file.
  const rows = readFileSync(FILE, 'utf8').split(/\r?\n/).slice(2);
  loaded = [];
  for (const row of rows) {
    const [id, parent, name, ...tiers] = row.split('\t');
    if (!id?.trim() || !name?.trim()) continue;
    const names = tiers
      .slice(0, 4)
      .map((t) => t.trim())
      .filter(Boolean);
    loaded.push({ id: id.trim(), parent: parent?.trim() || null, name: name.trim(), tier: names.length, path: names });
  }
  return loaded;
}

let byId: Map<string, ContentCategory> | undefined;

/** One category by its id (undefined for an id the taxonomy does not have). */
export function contentCategory(id: string): ContentCategory | undefined {
  byId ??= new Map(contentTaxonomy().map((c) => [c.id, c]));
  return byId.get(id);
}
