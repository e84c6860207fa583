/**
 * The settings that make an organization's ads servable (issue 22): the
 * advertiser's website (where a click goes when an ad names no target URL),
 * its logo (what a chat card shows in a text placement) and the organization's
 * default card (charged the deposit of every campaign create). One service,
 * called by the dashboard's Account page and `adctl org update`; /v1 only reads
 * the result (GET /v1/ad_account: `url`, `preview_url`). The auction's index
 * reloads on any ad_accounts change (its NOTIFY trigger, auction/catalog.ts),
 * so a new website or logo serves within seconds.
 */
import { z } from 'zod';
import type { AssetStore } from '../../lib/asset-store';
import { config } from '../../lib/config';
import type { Db, Prisma } from '../../lib/db';
import { sha256Hex } from '../../lib/hash';
import { assetKey, assetUrl, createAdAsset, deleteAssets, type LoadedImage } from '../assets/ad-images';
import { DomainError } from '../errors';
import { httpUrl } from '../schema-rules';
import { fetchImageBytes } from '../uploads/guarded-fetch';
import { inspectImage, MAX_UPLOAD_BYTES } from '../uploads/image-inspect';
import { accountDisplay } from './account';
import { recordChange } from '../audit/log';

/** A Stripe payment method id (`pm_card_visa`, `pm_1Nx...`): checked for its shape; Stripe judges the card at the first charge. */
export const PAYMENT_METHOD_PATTERN = /^pm_[A-Za-z0-9_]{1,100}$/;

/** The website and card as the dashboard sends them (adctl's flags go through the same schema). */
export const accountUpdateSchema = z.strictObject({
  url: httpUrl(2048, 'url must be an absolute http(s) URL, such as https://shop.example')
    .nullable()
    .optional()
    .describe("The advertiser's website (http or https, at most 2048 characters); null removes it, and the organization's domain shows again"),
  payment_method: z
    .string()
    .regex(PAYMENT_METHOD_PATTERN, 'payment_method must be a Stripe payment method id (pm_...)')
    .optional()
    .describe('Stripe payment method id of the default card (pm_card_visa succeeds, pm_card_chargeDeclined is declined)'),
});
export type AccountUpdate = z.output<typeof accountUpdateSchema>;

/** A logo's bytes as uploaded, or a public URL the service downloads (SSRF-guarded, as an ad's image_url). */
export type LogoSource = { file: Buffer } | { url: string };

export interface AccountChanges {
  /** The website; null removes it. */
  url?: string | null;
  paymentMethodId?: string;
  /** The Stripe customer the card is saved on; a new card without one forgets the previous card's customer. */
  stripeCustomerId?: string;
  logo?: LogoSource;
}

/** A validated update body as changes (the dashboard's body, adctl's `--url` and `--payment-method`). */
export function accountChanges(update: AccountUpdate): AccountChanges {
  return {
    ...(update.url !== undefined ? { url: update.url } : {}),
    ...(update.payment_method !== undefined ? { paymentMethodId: update.payment_method } : {}),
  };
}

export interface AccountDeps {
  db: Db;
  store: AssetStore;
}

const settingsSelect = {
  id: true,
  publicId: true,
  name: true,
  domain: true,
  defaultPaymentMethodId: true,
  createdAt: true,
  adAccounts: {
    where: { isDefault: true },
    take: 1,
    select: { id: true, name: true, url: true, logoUrl: true, logoAsset: { select: { sha256: true, ext: true } } },
  },
} satisfies Prisma.OrganizationSelect;
type OrganizationRow = Prisma.OrganizationGetPayload<{ select: typeof settingsSelect }>;

/** An organization as its settings show: what GET /v1/ad_account reads, the raw website beside it, and the card. */
function present(org: OrganizationRow) {
  const account = org.adAccounts[0];
  return {
    org_public_id: org.publicId,
    name: org.name,
    domain: org.domain,
    ad_account: account
      ? {
          id: account.id,
          name: account.name,
          /** The account's own website (null: none set, `url` falls back to the domain). */
          website: account.url,
          /** As GET /v1/ad_account reads it. */
          url: accountDisplay(account, org.domain).url,
          preview_url: account.logoUrl,
          /** A stored logo's same-origin path (what the dashboard shows under its CSP); null for none or an outside URL. */
          logo_path: account.logoAsset ? `/${assetKey(account.logoAsset)}` : null,
        }
      : null,
    payment_method_id: org.defaultPaymentMethodId,
    created_at: org.createdAt.toISOString(),
  };
}
export type AccountSettings = ReturnType<typeof present>;

/** The organization's settings (it exists: a signed-in member's, or one adctl looked up). */
export async function accountSettings(db: Db, organizationId: string): Promise<AccountSettings> {
  return present(await db.organization.findUniqueOrThrow({ where: { id: organizationId }, select: settingsSelect }));
}

/** Organizations (not deleted), newest first, at most `limit`: `adctl org list`. */
export async function listAccountSettings(db: Db, limit: number): Promise<AccountSettings[]> {
  const rows = await db.organization.findMany({
    where: { deletedAt: null },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: limit,
    select: settingsSelect,
  });
  return rows.map(present);
}

/** The logo's bytes, checked as an upload is (PNG, JPEG or WebP, at most 5 MB, decodable); errors name `file` or `logo_url`. */
async function loadLogo(source: LogoSource): Promise<LoadedImage> {
  const param = 'url' in source ? 'logo_url' : 'file';
  const relabel = (err: unknown): never => {
    throw err instanceof DomainError ? err.withParam(param) : err;
  };
  const bytes =
    'url' in source
      ? await fetchImageBytes(source.url, {
          maxBytes: MAX_UPLOAD_BYTES,
          timeoutMs: 10_000,
          allowLoopback: config.imageFetch.allowLoopback,
          loopbackOnly: config.imageFetch.loopbackOnly,
        }).catch(relabel)
      : source.file;
  const info = await inspectImage(bytes).catch(relabel);
  return { ...info, bytes, sizeBytes: bytes.length, sha256: sha256Hex(bytes) };
}

/**
 * Changes the website, logo and card of an organization's default ad account,
 * all or nothing. The logo is loaded and checked before anything is written;
 * it is stored as an asset (like an ad's image, served at `/assets/<sha256>.<ext>`)
 * and the one it replaces is deleted after the commit.
 */
export async function updateAccount(deps: AccountDeps, organizationId: string, changes: AccountChanges): Promise<AccountSettings> {
  const { db, store } = deps;
  const logo = changes.logo ? await loadLogo(changes.logo) : null;
  const replaced = await db.$transaction(async (tx) => {
    // Locked, so that concurrent changes each see (and the audit log records) what they replaced.
    const [org] = await tx.$queryRaw<{ public_id: string; default_payment_method_id: string | null; stripe_customer_id: string | null }[]>`
      SELECT public_id::text, default_payment_method_id, stripe_customer_id FROM organizations WHERE id = ${organizationId}::uuid FOR UPDATE`;
    const before: Record<string, unknown> = { paymentMethodId: org.default_payment_method_id, stripeCustomerId: org.stripe_customer_id };
    const after: Record<string, unknown> = { ...before };
    const audit = () => recordChange(tx, { organizationId, entity: { type: 'account', id: org.public_id }, action: 'updated', before, after });
    if (changes.paymentMethodId !== undefined) {
      await tx.organization.update({
        where: { id: organizationId },
        data: { defaultPaymentMethodId: changes.paymentMethodId, stripeCustomerId: changes.stripeCustomerId ?? null },
      });
      Object.assign(after, { paymentMethodId: changes.paymentMethodId, stripeCustomerId: changes.stripeCustomerId ?? null });
    }
    if (changes.url === undefined && !logo) return audit().then(() => null);
    // Locked, so that two logo uploads at once each delete what they replaced.
    const [account] = await tx.$queryRaw<{ id: string; logo_asset_id: string | null; url: string | null; logo_url: string | null }[]>`
      SELECT id, logo_asset_id, url, logo_url FROM ad_accounts WHERE organization_id = ${organizationId}::uuid AND is_default FOR UPDATE`;
    if (!account) throw new DomainError('no_ad_account', 'The organization has no ad account to set a website or logo on', null);
    const data: Prisma.AdAccountUncheckedUpdateInput = {};
    if (changes.url !== undefined) data.url = changes.url;
    if (logo) {
      data.logoAssetId = await createAdAsset(tx, store, organizationId, logo);
      data.logoUrl = assetUrl(logo);
    }
    await tx.adAccount.update({ where: { id: account.id }, data });
    Object.assign(before, { website: account.url, logoUrl: account.logo_url });
    Object.assign(
      after,
      { website: account.url, logoUrl: account.logo_url },
      data.url !== undefined && { website: data.url },
      logo && { logoUrl: data.logoUrl },
    );
    await audit();
    return logo ? account.logo_asset_id : null;
  });
  if (replaced) await deleteAssets(db, store, [replaced]).catch((err: Error) => console.error(`replaced logo not deleted: ${err.message}`));
  return accountSettings(db, organizationId);
}
