import { LRUCache } from 'lru-cache';

/**
 * A least-recently-used map from a message's text to what the classifier
 * derived from it (lru-cache). Chat hosts resend the whole history with every
 * ad request, so a long conversation costs only its new messages. Bounded by
 * entries and by the characters its keys hold; a message longer than
 * `maxKeyChars` is never cached.
 */
export class MessageCache<V extends NonNullable<unknown>> extends LRUCache<string, V> {
  constructor(maxEntries: number, maxChars: number, maxKeyChars: number) {
    // A size must be positive: the empty message counts one character.
    super({ max: maxEntries, maxSize: maxChars, maxEntrySize: maxKeyChars, sizeCalculation: (_value, key) => Math.max(1, key.length) });
  }
}
