import { plainPoolOf, writeInBackground, type Db } from '../../lib/db';
import { digestsEqual, hashSecret } from '../../lib/secrets';

/** Who is calling `/v1`: the organization of the key, and the key (rate budgets are per key). */
export interface ApiKeyAuth {
  organizationId: string;
  apiKeyId: string;
}

/** `last_used` is refreshed at most once a minute per key instead of on every request. */
export const LAST_USED_RESOLUTION_MS = 60_000;

interface KeyRow {
  secretHash: string;
  revokedAt: Date | null;
  expiresAt: Date | null;
  organization: { deletedAt: Date | null };
}

/** A key is valid while it is neither revoked nor expired and its organization exists. */
export function isKeyValid(key: KeyRow, secretHash: string, now: number): boolean {
  return (
    digestsEqual(key.secretHash, secretHash) &&
    key.revokedAt === null &&
    (key.expiresAt === null || key.expiresAt.getTime() > now) &&
    key.organization.deletedAt === null
  );
}

interface KeyLookupRow {
  id: string;
  secret_hash: string;
  organization_id: string;
  revoked_at: Date | null;
  expires_at: Date | null;
  last_used_at: Date | null;
  organization_deleted_at: Date | null;
}

const keyOf = (row: KeyLookupRow) => ({
  id: row.id,
  secretHash: row.secret_hash,
  organizationId: row.organization_id,
  revokedAt: row.revoked_at,
  expiresAt: row.expires_at,
  lastUsedAt: row.last_used_at,
  organization: { deletedAt: row.organization_deleted_at },
});

/**
 * The key behind an `ak_` secret, or null when there is none or it is not
 * valid (callers answer one error for every refusal, so it never says why).
 * A valid key's last_used is refreshed in the background, tracked on `db` so
 * that closing the client waits for it (lib/db.ts closeDb).
 */
export async function authenticateApiKey(db: Db, secret: string, now = Date.now()): Promise<ApiKeyAuth | null> {
  const secretHash = hashSecret(secret);
  // One statement for the key and its organization, on the plain pool (every request runs it; lib/db.ts).
  // The columns are UTC `timestamp`s: read as instants.
  const { rows } = await plainPoolOf(db).query<KeyLookupRow>(
    `SELECT k.id, k.secret_hash, k.organization_id, k.revoked_at AT TIME ZONE 'UTC' AS revoked_at, k.expires_at AT TIME ZONE 'UTC' AS expires_at,
            k.last_used_at AT TIME ZONE 'UTC' AS last_used_at, o.deleted_at AT TIME ZONE 'UTC' AS organization_deleted_at
       FROM api_keys k JOIN organizations o ON o.id = k.organization_id
      WHERE k.secret_hash = $1`,
    [secretHash],
  );
  const key = rows.length ? keyOf(rows[0]) : null;
  if (key === null || !isKeyValid(key, secretHash, now)) return null;
  if (!key.lastUsedAt || now - key.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    writeInBackground(db, 'last_used update', () => refreshLastUsed(db, key.id, now));
  }
  return { organizationId: key.organizationId, apiKeyId: key.id };
}

/**
 * One conditional statement, so concurrent first requests write once, and no
 * interactive transaction (Prisma's updateMany opens one), so a disconnect in
 * the middle can never leave a session idle inside it.
 */
export function refreshLastUsed(db: Db, apiKeyId: string, now = Date.now()): Promise<number> {
  const stale = new Date(now - LAST_USED_RESOLUTION_MS);
  return db.$executeRaw`
    UPDATE api_keys SET last_used_at = ${new Date(now)}
    WHERE id = ${apiKeyId}::uuid AND (last_used_at IS NULL OR last_used_at < ${stale})`;
}
