import { plainPoolOf, type Db } from '../../lib/db';
import { hashSecret, newSecret, SESSION_TOKEN_PREFIX } from '../../lib/secrets';
import { mintApiKey } from '../api-keys/service';

const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;

export type Role = 'owner' | 'admin' | 'member';

/** A dashboard session for a member; only the token's hash is stored. */
export async function createSession(db: Db, memberId: string, ttlMs = SESSION_TTL_MS): Promise<string> {
  const token = newSecret(SESSION_TOKEN_PREFIX);
  await db.dashboardSession.create({
    data: { memberId, tokenHash: hashSecret(token), expiresAt: new Date(Date.now() + ttlMs) },
  });
  return token;
}

export interface NewOrganization {
  name: string;
  domain?: string;
  paymentMethodId?: string;
  /** The Stripe customer the payment method is attached to (needed by real Stripe for saved cards). */
  stripeCustomerId?: string;
  withAdAccount: boolean;
}

/**
 * An organization with its default ad account, an owner with a dashboard
 * session, and a first API key: what an advertiser has after sign-up.
 */
export async function createOrganization(db: Db, input: NewOrganization) {
  const org = await db.organization.create({
    data: {
      name: input.name,
      domain: input.domain ?? null,
      defaultPaymentMethodId: input.paymentMethodId ?? null,
      stripeCustomerId: input.stripeCustomerId ?? null,
      ...(input.withAdAccount ? { adAccounts: { create: { name: input.name, isDefault: true } } } : {}),
      members: { create: { role: 'owner' } },
    },
    include: { adAccounts: true, members: true },
  });
  const sessionToken = await createSession(db, org.members[0].id);
  const key = await mintApiKey(db, org.id, 'default');
  return {
    org_public_id: org.publicId,
    ad_account_id: org.adAccounts[0]?.id ?? null,
    api_key: key.record.secret,
    session_token: sessionToken,
  };
}

export async function findOrganization(db: Db, publicId: string) {
  return db.organization.findFirst({ where: { publicId, deletedAt: null } });
}

export async function createMember(db: Db, organizationId: string, role: Role) {
  const member = await db.member.create({ data: { organizationId, role } });
  return { session_token: await createSession(db, member.id) };
}

/** Soft delete: every key and session of the organization stops working at once. */
export async function deleteOrganization(db: Db, organizationId: string) {
  await db.organization.update({ where: { id: organizationId }, data: { deletedAt: new Date() } });
}

/** What a deposit is charged to: the organization's default payment method and its Stripe customer. */
export interface Billing {
  paymentMethodId: string;
  customerId: string | null;
}

/** An organization row's billing, or null when billing is not configured. */
const billingOf = (org: { defaultPaymentMethodId: string | null; stripeCustomerId: string | null }): Billing | null =>
  org.defaultPaymentMethodId ? { paymentMethodId: org.defaultPaymentMethodId, customerId: org.stripeCustomerId } : null;

/** The organization's public id and billing (null when not configured), or null when there is no such organization; on the plain pool (every campaign create reads it). */
async function billingRowOf(db: Db, organizationId: string): Promise<{ publicId: string; billing: Billing | null } | null> {
  const { rows } = await plainPoolOf(db).query<{ public_id: string; default_payment_method_id: string | null; stripe_customer_id: string | null }>(
    'SELECT public_id, default_payment_method_id, stripe_customer_id FROM organizations WHERE id = $1::uuid',
    [organizationId],
  );
  if (rows.length === 0) return null;
  const [org] = rows;
  return { publicId: org.public_id, billing: billingOf({ defaultPaymentMethodId: org.default_payment_method_id, stripeCustomerId: org.stripe_customer_id }) };
}

/** The organization's public id and billing, as a campaign create reads them (the organization must exist). */
export async function organizationBillingOf(db: Db, organizationId: string): Promise<{ publicId: string; billing: Billing | null }> {
  const row = await billingRowOf(db, organizationId);
  if (!row) throw new Error(`organization ${organizationId} not found`);
  return row;
}

/** The organization's billing, or null when it is not configured (or there is no such organization). */
export async function paymentMethodOf(db: Db, organizationId: string): Promise<Billing | null> {
  return (await billingRowOf(db, organizationId))?.billing ?? null;
}
