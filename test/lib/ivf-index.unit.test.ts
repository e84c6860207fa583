/**
 * The approximate nearest-neighbour index (lib/ivf-index.ts) on random unit
 * vectors: exact below its size threshold, a planted near vector found among
 * thousands, and a rebuild over mostly the same vectors (reusing the last
 * build's lists) still finding what is new.
 */
import { IvfIndex, seededRandom } from '../../lib/ivf-index';
import { dotAt } from '../../lib/vectors';

const DIMS = 96;

const random = seededRandom(45);
const unit = (v: Float32Array) => {
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
};
const randomUnit = () => unit(Float32Array.from({ length: DIMS }, () => random() - 0.5));
const near = (v: Float32Array) => unit(v.map((x) => x + 0.1 * (random() - 0.5)));
const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, j) => s + x * b[j], 0);
const options = { codeDims: 32, random: seededRandom(7) };

test('below its threshold the index is an exact scan', () => {
  const vectors = Array.from({ length: 500 }, randomUnit);
  const q = randomUnit();
  const exact = vectors
    .map((v, i) => [dot(q, v), i] as const)
    .sort((a, b) => b[0] - a[0])
    .slice(0, 10)
    .map(([, i]) => i);
  const index = IvfIndex.buildSync(vectors, options);
  expect(index.lists).toBe(0);
  expect(index.nearest(q, 10)).toEqual(exact);
});

test('among thousands, a planted near vector is found first, and again after a rebuild that reuses the lists', () => {
  const vectors = Array.from({ length: 4000 }, randomUnit);
  const q = randomUnit();
  vectors[2500] = near(q);
  const index = IvfIndex.buildSync(vectors, options);
  expect(index.lists).toBeGreaterThan(1);
  expect(index.nearest(q, 64)[0]).toBe(2500);
  // A reload of part of the catalog: a few vectors replaced, one of them near a new query.
  const next = [...vectors];
  for (let i = 0; i < 100; i++) next[i * 7] = randomUnit();
  const q2 = randomUnit();
  next[700] = near(q2);
  const rebuilt = IvfIndex.buildSync(next, options, index);
  expect(rebuilt.lists).toBe(index.lists);
  expect(rebuilt.nearest(q, 64)[0]).toBe(2500);
  expect(rebuilt.nearest(q2, 64)[0]).toBe(700);
});

test('a rebuild over fewer vectors (fewer lists by its size) reusing the last build still holds every vector', () => {
  const vectors = Array.from({ length: 4000 }, randomUnit);
  const index = IvfIndex.buildSync(vectors, options);
  // A reload that dropped 600 groups: sqrt(n) names fewer lists than the reused build has.
  const fewer = vectors.slice(0, 3400);
  const rebuilt = IvfIndex.buildSync(fewer, options, index);
  expect(rebuilt.size).toBe(3400);
  const missed = fewer.filter((v, i) => i % 17 === 0 && rebuilt.nearest(v, 1)[0] !== i);
  expect(missed).toEqual([]);
});

test('among many equal scores (a catalog of near twins), the best are still found and k are returned', () => {
  const twins = [randomUnit(), randomUnit(), randomUnit()];
  const vectors = Array.from({ length: 3000 }, (_, i) => twins[i % 3]);
  vectors[1234] = near(twins[0]);
  const index = IvfIndex.buildSync(vectors, options);
  expect(index.lists).toBeGreaterThan(1);
  const found = index.nearest(twins[1], 64);
  expect(found).toHaveLength(64);
  expect(new Set(found).size).toBe(64);
  for (const i of found) expect(vectors[i]).toBe(twins[1]);
});

test("nearestScored's similarities are dotAt's to the last bit, scanned exactly or by lists", () => {
  for (const count of [500, 4000]) {
    const vectors = Array.from({ length: count }, randomUnit);
    const q = randomUnit();
    const index = IvfIndex.buildSync(vectors, options);
    const { ids, similarities } = index.nearestScored(q, 32);
    expect(ids).toEqual(index.nearest(q, 32));
    ids.forEach((id, j) => expect(similarities[j]).toBe(dotAt(q, vectors[id], 0, DIMS)));
  }
});
