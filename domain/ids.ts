import { v7 as uuidv7 } from 'uuid';

/** Our resource ids are UUIDs; a malformed id names nothing (callers answer 404 without a query). */
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (value: string) => UUID_RE.test(value);

/** The canonical (lowercase) id, or null when `id` cannot name a resource. */
export const normalizeId = (id: unknown): string | null => (typeof id === 'string' && isUuid(id) ? id.toLowerCase() : null);

/**
 * A new auction's id: a UUIDv7, its leading bits the time. The rows keyed by it,
 * the delivery ledger's event ids above all, then go in at the end of their
 * index instead of anywhere in it: a random key dirties a page of the whole
 * index per row, and the write-ahead log carries each such page whole after
 * every checkpoint (docs/architecture.md, "Auction ids").
 */
export const newAuctionId = (): string => uuidv7();
