import { notFound } from '../../domain/errors';
import { isUuid } from '../../domain/ids';
import { mintApiKey as recordMint, revokeApiKey as recordRevoke } from '../../domain/api-keys/service';
import { endKeyRotationGrace, settleKeyRotation } from '../../workflows/clients/key-rotation-grace';
import type { UseCaseDeps } from '../deps';

/**
 * Minting an API key rotates the active one: the new key is written, then the
 * rotated-out key's grace workflow starts and the workflows of keys the mint
 * retired early end (a bounded wait: the new secret, shown once, is never lost
 * to Temporal being slow). The platform endpoints and the dashboard both call it.
 */
export async function mintApiKey({ db, temporal }: UseCaseDeps, organizationId: string, name: string) {
  const minted = await recordMint(db, organizationId, name);
  await settleKeyRotation(temporal, minted);
  return minted;
}

/** Revokes a key at once (404 `not_found` on `key_public_id` when the organization has no such key), ending its grace workflow if one runs. */
export async function revokeApiKey({ db, temporal }: UseCaseDeps, organizationId: string, keyPublicId: string) {
  const revoked = isUuid(keyPublicId) ? await recordRevoke(db, organizationId, keyPublicId.toLowerCase()) : null;
  if (!revoked) throw notFound('API key', 'key_public_id');
  if (revoked.endedGraceOf) await endKeyRotationGrace(temporal, revoked.endedGraceOf);
  return revoked.record;
}
