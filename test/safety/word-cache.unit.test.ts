/**
 * The safety model's word cache (domain/safety/classifier/model.ts) is bounded in bytes:
 * a conversation of crafted unique tokens, short or as long as a message
 * allows, cannot grow it beyond WORD_CACHE_MAX_BYTES, and it still caches.
 */
import { randomBytes } from 'node:crypto';
import { clearModelFeatureCache, modelFeatures, WORD_CACHE_MAX_BYTES, WORD_CACHE_MAX_WORD, wordCacheUsage } from '../../domain/safety/classifier/model';

/** A unique lower-case token of `length` letters. */
const token = (length: number) => {
  const bytes = randomBytes(length);
  let out = '';
  for (const b of bytes) out += String.fromCharCode(97 + (b % 26));
  return out;
};

const conversation = (words: string[]) => [
  { role: 'user' as const, content: words.join(' ') },
  { role: 'assistant' as const, content: 'Here are a few options.' },
];

test('unique tokens just under the cached length fill the cache to its byte bound, never past it', () => {
  // Each entry counts at least 2 * (key + value) bytes: far more than the bound holds.
  const perMessage = Math.floor(4000 / (WORD_CACHE_MAX_WORD + 1));
  for (let i = 0; i < 800; i += 1) {
    modelFeatures(conversation(Array.from({ length: perMessage }, () => token(WORD_CACHE_MAX_WORD))));
    expect(wordCacheUsage().bytes).toBeLessThanOrEqual(WORD_CACHE_MAX_BYTES);
  }
  const { entries, bytes } = wordCacheUsage();
  expect(bytes).toBeGreaterThan(WORD_CACHE_MAX_BYTES * 0.9);
  expect(entries).toBeLessThan(WORD_CACHE_MAX_BYTES / (2 * WORD_CACHE_MAX_WORD));
});

test('tokens as long as a message allows are never cached, and ordinary words still are', () => {
  clearModelFeatureCache();
  const before = wordCacheUsage();
  for (let i = 0; i < 50; i += 1) modelFeatures(conversation([token(1990), token(1990)]));
  // One cached 1990-letter token would count 2 * 1990 bytes at least; the assistant's few words are all that may come in.
  expect(wordCacheUsage().bytes - before.bytes).toBeLessThan(2 * 1990);
  expect(wordCacheUsage().entries - before.entries).toBeLessThanOrEqual(5);
  const features = modelFeatures(conversation(['espresso', 'machines', 'pumping', token(12)]));
  expect(features.has('w:espresso')).toBe(true);
  expect(modelFeatures(conversation(['espresso', 'machines', 'pumping', token(12)])).has('w:machin')).toBe(true);
});
