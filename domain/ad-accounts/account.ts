import { plainPoolOf, type Db } from '../../lib/db';
import { DomainError, notFound } from '../errors';

type AdAccountRow = { name: string; url: string | null };

/** The advertiser as shown: the account's name, and its URL or else the organization's domain. */
export function accountDisplay(account: AdAccountRow, organizationDomain: string | null): { name: string; url: string } {
  return { name: account.name, url: account.url ?? organizationDomain ?? '' };
}

/** The organization's default ad account (with its organization's domain), or null when it has none. */
export function findDefaultAdAccount(db: Db, organizationId: string) {
  return db.adAccount.findFirst({
    where: { organizationId, isDefault: true },
    include: { organization: { select: { domain: true } } },
  });
}

/**
 * The ad account a new campaign goes to: the one named (404 `not_found` when it
 * is unknown or another organization's), or the organization's default
 * (400 `no_ad_account` when it has none).
 */
export async function resolveAdAccount(db: Db, organizationId: string, adAccountId: string | undefined): Promise<string> {
  // Every campaign create reads it: on the plain pool (lib/db.ts plainPoolOf).
  const pool = plainPoolOf(db);
  if (adAccountId !== undefined) {
    const { rows } = await pool.query<{ id: string }>('SELECT id FROM ad_accounts WHERE id = $1::uuid AND organization_id = $2::uuid', [
      adAccountId,
      organizationId,
    ]);
    if (rows.length === 0) throw notFound('ad account', 'ad_account_id');
    return rows[0].id;
  }
  const { rows } = await pool.query<{ id: string }>(
    'SELECT id FROM ad_accounts WHERE organization_id = $1::uuid ORDER BY is_default DESC, created_at ASC LIMIT 1',
    [organizationId],
  );
  if (rows.length === 0) throw new DomainError('no_ad_account', 'The organization has no ad account', 'ad_account_id');
  return rows[0].id;
}
