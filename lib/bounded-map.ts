/**
 * A Map that empties itself when a new key would pass `maxEntries`: for memos
 * whose keys are few in practice (user agents, DSP URLs, API keys in use) but
 * unbounded in principle. Emptying is cheaper than tracking recency, and a
 * memo refills on its own.
 */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(private readonly maxEntries: number) {
    super();
  }

  override set(key: K, value: V): this {
    if (this.size >= this.maxEntries && !this.has(key)) this.clear();
    return super.set(key, value);
  }
}
