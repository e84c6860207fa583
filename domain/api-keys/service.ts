import type { Db } from '../../lib/db';
import { config } from '../../lib/config';
import { hashSecret, keyPreview, newSecret } from '../../lib/secrets';
import { consumeOrThrow } from '../rate-limits/sliding-window';
import { recordChange, recordChanges, type Change } from '../audit/log';

type ApiKeyRow = {
  publicId: string;
  name: string;
  isActive: boolean;
  keyPreview: string;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  createdAt: Date;
};

/** The spec's API key record (without `secret`). */
export function presentApiKey(key: ApiKeyRow) {
  return {
    public_id: key.publicId,
    name: key.name,
    is_active: key.isActive,
    key_preview: key.keyPreview,
    last_used: key.lastUsedAt?.toISOString() ?? null,
    expires_at: key.expiresAt?.toISOString() ?? null,
    created_at: key.createdAt.toISOString(),
  };
}

export interface MintedKey {
  record: ReturnType<typeof presentApiKey> & { secret: string };
  /** The key this mint rotated out, which stays valid until `expiresAt`. */
  rotatedOut: { id: string; expiresAt: Date } | null;
  /** Keys that were still in the grace of an earlier rotation: retired now, their grace workflows to be ended. */
  retiredEarly: string[];
}

/**
 * Mints a key. When the organization has an active key it is rotated out in the
 * same transaction: inactive from now, valid until the end of the grace window.
 * A key still in the grace of an earlier rotation is retired at once, so at
 * most two keys are ever valid (the new one and the one it replaces). The
 * organization row is locked so two concurrent mints cannot leave two active
 * keys. Mints are rate limited per organization (a 429 `rate_limit_exceeded`).
 */
export async function mintApiKey(db: Db, organizationId: string, name: string): Promise<MintedKey> {
  await consumeOrThrow(
    db,
    `api_key_mint:${organizationId}`,
    config.rateLimits.apiKeyMintsPerOrgPerHour,
    'Too many API keys minted for this organization; retry later',
  );
  const secret = newSecret('ak_');
  return db.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM organizations WHERE id = ${organizationId}::uuid FOR UPDATE`;
    const now = new Date();
    const inGrace = await tx.apiKey.findMany({
      where: { organizationId, isActive: false, revokedAt: null, expiresAt: { gt: now } },
      select: { id: true },
    });
    const retiredEarly = inGrace.map((key) => key.id);
    const changes: Change[] = [];
    if (retiredEarly.length) {
      await tx.apiKey.updateMany({ where: { id: { in: retiredEarly } }, data: { expiresAt: now, revokedAt: now } });
      const retired = await tx.apiKey.findMany({ where: { id: { in: retiredEarly } }, select: { publicId: true } });
      changes.push(...retired.map((key) => keyChange(organizationId, key.publicId, 'revoked', { revokedAt: null }, { revokedAt: now })));
    }
    const active = await tx.apiKey.findFirst({ where: { organizationId, isActive: true } });
    let rotatedOut: MintedKey['rotatedOut'] = null;
    if (active) {
      const expiresAt = new Date(Date.now() + config.keyRotationGraceSeconds * 1000);
      await tx.apiKey.update({ where: { id: active.id }, data: { isActive: false, expiresAt } });
      rotatedOut = { id: active.id, expiresAt };
      changes.push(keyChange(organizationId, active.publicId, 'rotated_out', { isActive: true, expiresAt: active.expiresAt }, { isActive: false, expiresAt }));
    }
    const created = await tx.apiKey.create({
      data: { organizationId, name, secretHash: hashSecret(secret), keyPreview: keyPreview(secret) },
    });
    changes.push(keyChange(organizationId, created.publicId, 'created', null, created));
    await recordChanges(tx, changes);
    return { record: { ...presentApiKey(created), secret }, rotatedOut, retiredEarly };
  });
}

/** Immediate revocation, no grace. Revoking twice is harmless. Null when unknown. */
export async function revokeApiKey(db: Db, organizationId: string, publicId: string) {
  const key = await db.apiKey.findFirst({ where: { organizationId, publicId } });
  if (!key) return null;
  const now = new Date();
  // A rotated-out key still in its grace window: revoking it ends that window early.
  const endsGrace = key.revokedAt === null && !key.isActive && key.expiresAt !== null && key.expiresAt > now;
  if (key.revokedAt === null) {
    // A rotated-out key keeps no part of its grace window.
    const expiresAt = key.expiresAt && key.expiresAt < now ? key.expiresAt : now;
    await db.$transaction(async (tx) => {
      const after = await tx.apiKey.update({ where: { id: key.id }, data: { isActive: false, revokedAt: now, expiresAt } });
      await recordChange(tx, keyChange(organizationId, key.publicId, 'revoked', key, after));
    });
  }
  return { record: { public_id: key.publicId, revoked: true as const }, endedGraceOf: endsGrace ? key.id : null };
}

/** An API key's audit entry (its secret's hash is masked by the log). */
const keyChange = (organizationId: string, publicId: string, action: string, before: object | null, after: object | null): Change => ({
  organizationId,
  entity: { type: 'api_key', id: publicId },
  action,
  before,
  after,
});

export async function listApiKeys(db: Db, organizationId: string) {
  const keys = await db.apiKey.findMany({ where: { organizationId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
  return keys.map(presentApiKey);
}

/** Marks a rotated-out key retired once its grace window is over (the grace workflow's timer is the authority on when). */
export async function retireRotatedKey(db: Db, apiKeyId: string): Promise<void> {
  await db.apiKey.updateMany({ where: { id: apiKeyId, isActive: false, revokedAt: null }, data: { revokedAt: new Date() } });
}
