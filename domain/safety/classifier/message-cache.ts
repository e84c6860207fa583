/**
 * A bounded least-recently-used map from a message's text to what the
 * classifier derived from it. Chat hosts resend the whole history with every
 * ad request, so a long conversation costs only its new messages. Bounded by
 * entries and by the characters its keys hold; a message longer than
 * `maxKeyChars` is never cached.
 */
export class MessageCache<V> {
  private readonly map = new Map<string, V>();
  private chars = 0;

  constructor(
    readonly maxEntries: number,
    readonly maxChars: number,
    readonly maxKeyChars: number,
  ) {}

  get size(): number {
    return this.map.size;
  }

  get(key: string): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined) {
      // Most recently used last.
      this.map.delete(key);
      this.map.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    if (key.length > this.maxKeyChars || this.maxEntries === 0) return;
    if (this.map.has(key)) this.map.delete(key);
    else this.chars += key.length;
    this.map.set(key, value);
    while (this.map.size > this.maxEntries || this.chars > this.maxChars) {
      const oldest = this.map.keys().next().value as string;
      this.map.delete(oldest);
      this.chars -= oldest.length;
    }
  }

  clear(): void {
    this.map.clear();
    this.chars = 0;
  }
}
