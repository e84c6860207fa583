/** Our resource ids are UUIDs; a malformed id names nothing (callers answer 404 without a query). */
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (value: string) => UUID_RE.test(value);

/** The canonical (lowercase) id, or null when `id` cannot name a resource. */
export const normalizeId = (id: unknown): string | null => (typeof id === 'string' && isUuid(id) ? id.toLowerCase() : null);
