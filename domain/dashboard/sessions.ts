/**
 * Who is signed in to the dashboard. Two kinds of session, both stored as the
 * SHA-256 of a 256-bit token:
 * - a member's: the same `sess_` dashboard session the platform surface
 *   (`/api/organizations/...`) accepts as a Bearer token;
 * - a staff reviewer's (`staff_`): staff belong to no organization, so they
 *   never reach the platform surface or an organization's data.
 * Sign-in is a one-time link (`adctl login-link`), redeemed once.
 */
import { config } from '../../lib/config';
import type { Db } from '../../lib/db';
import { digestsEqual, hashSecret, newSecret, SESSION_TOKEN_PREFIX } from '../../lib/secrets';
import { createSession, type Role } from '../organizations/service';

export const STAFF_TOKEN_PREFIX = 'staff_';
const LOGIN_LINK_PREFIX = 'dl_';

export interface MemberPrincipal {
  kind: 'member';
  memberId: string;
  organizationId: string;
  organizationPublicId: string;
  organizationName: string;
  role: Role;
}
export interface StaffPrincipal {
  kind: 'staff';
  name: string;
}
export type DashboardPrincipal = MemberPrincipal | StaffPrincipal;

/** A member's `sess_` session, if it is known, unexpired and its organization not deleted. */
export async function findMemberSession(db: Db, token: string): Promise<MemberPrincipal | null> {
  if (!token.startsWith(SESSION_TOKEN_PREFIX)) return null;
  const tokenHash = hashSecret(token);
  const session = await db.dashboardSession.findUnique({
    where: { tokenHash },
    select: {
      tokenHash: true,
      expiresAt: true,
      member: { select: { id: true, role: true, organization: { select: { id: true, publicId: true, name: true, deletedAt: true } } } },
    },
  });
  if (!session || !digestsEqual(session.tokenHash, tokenHash) || session.expiresAt.getTime() <= Date.now() || session.member.organization.deletedAt !== null) {
    return null;
  }
  const { member } = session;
  return {
    kind: 'member',
    memberId: member.id,
    organizationId: member.organization.id,
    organizationPublicId: member.organization.publicId,
    organizationName: member.organization.name,
    role: member.role,
  };
}

/** The principal of a dashboard cookie's token, or null (unknown, expired, an `ak_` key, anything else). */
export async function findDashboardSession(db: Db, token: string): Promise<DashboardPrincipal | null> {
  if (token.startsWith(STAFF_TOKEN_PREFIX)) {
    const tokenHash = hashSecret(token);
    const staff = await db.staffSession.findUnique({ where: { tokenHash } });
    if (!staff || !digestsEqual(staff.tokenHash, tokenHash) || staff.expiresAt.getTime() <= Date.now()) return null;
    return { kind: 'staff', name: staff.name };
  }
  return findMemberSession(db, token);
}

/** Sign-out: the session ends everywhere (also as a Bearer token on the platform surface). */
export async function endDashboardSession(db: Db, token: string): Promise<void> {
  const tokenHash = hashSecret(token);
  if (token.startsWith(STAFF_TOKEN_PREFIX)) await db.staffSession.deleteMany({ where: { tokenHash } });
  else if (token.startsWith(SESSION_TOKEN_PREFIX)) await db.dashboardSession.deleteMany({ where: { tokenHash } });
}

// ---------------------------------------------------------------------------
// One-time sign-in links
// ---------------------------------------------------------------------------

export type LoginLinkFor = { memberId: string } | { staffName: string };

/** A link token (only its hash is stored), valid once within the configured window. */
export async function createLoginLink(db: Db, holder: LoginLinkFor): Promise<{ token: string; expiresAt: Date }> {
  const token = newSecret(LOGIN_LINK_PREFIX);
  const expiresAt = new Date(Date.now() + config.dashboard.loginLinkTtlSeconds * 1000);
  await db.dashboardLoginLink.create({
    data: {
      tokenHash: hashSecret(token),
      expiresAt,
      ...('memberId' in holder ? { memberId: holder.memberId } : { staffName: holder.staffName }),
    },
  });
  return { token, expiresAt };
}

/** Whether a string could be a link token at all (checked before any lookup). */
export const isLoginLinkToken = (token: unknown): token is string => typeof token === 'string' && /^dl_[A-Za-z0-9_-]{43}$/.test(token);

/**
 * Redeems a link: marks it used (a conditional update, so two concurrent
 * redemptions cannot both win) and opens a session. Null for an unknown,
 * used or expired link, or one whose organization has been deleted.
 */
export async function redeemLoginLink(db: Db, token: string): Promise<{ sessionToken: string; principal: DashboardPrincipal } | null> {
  if (!isLoginLinkToken(token)) return null;
  const tokenHash = hashSecret(token);
  const now = new Date();
  const { count } = await db.dashboardLoginLink.updateMany({
    where: { tokenHash, usedAt: null, expiresAt: { gt: now } },
    data: { usedAt: now },
  });
  if (count !== 1) return null;
  const link = await db.dashboardLoginLink.findUniqueOrThrow({ where: { tokenHash } });
  const ttlMs = config.dashboard.sessionTtlSeconds * 1000;
  if (link.memberId) {
    const sessionToken = await createSession(db, link.memberId, ttlMs);
    const principal = await findMemberSession(db, sessionToken);
    return principal ? { sessionToken, principal } : null;
  }
  const sessionToken = newSecret(STAFF_TOKEN_PREFIX);
  const name = link.staffName ?? 'reviewer';
  await db.staffSession.create({ data: { tokenHash: hashSecret(sessionToken), name, expiresAt: new Date(Date.now() + ttlMs) } });
  return { sessionToken, principal: { kind: 'staff', name } };
}

/** The member a link for (organization, role) signs in as: the oldest with that role, created when there is none. */
export async function memberForLoginLink(db: Db, organizationId: string, role: Role): Promise<string> {
  const existing = await db.member.findFirst({ where: { organizationId, role }, orderBy: { createdAt: 'asc' }, select: { id: true } });
  if (existing) return existing.id;
  return (await db.member.create({ data: { organizationId, role }, select: { id: true } })).id;
}

/** Where a link token is redeemed: the sign-in page under the public address. */
export const loginLinkUrl = (token: string) => `${config.api.publicUrl}/dashboard/login?token=${token}`;

/** A one-time sign-in link for a member of the organization with `role` (`adctl login-link`, `adctl demo seed`). */
export async function memberLoginLink(db: Db, organizationId: string, role: Role): Promise<{ url: string; expires_at: string }> {
  const link = await createLoginLink(db, { memberId: await memberForLoginLink(db, organizationId, role) });
  return { url: loginLinkUrl(link.token), expires_at: link.expiresAt.toISOString() };
}

/**
 * Retention (jobs/retention.ts): sessions and sign-in links past their expiry are deleted. An
 * expired row signs no one in (every lookup checks `expires_at`), so nothing changes but the
 * table's size; returns how many rows went.
 */
export async function pruneExpiredSessions(db: Db, now = new Date()): Promise<number> {
  const expired = { where: { expiresAt: { lt: now } } };
  const counts = await db.$transaction([
    db.dashboardSession.deleteMany(expired),
    db.staffSession.deleteMany(expired),
    db.dashboardLoginLink.deleteMany(expired),
  ]);
  return counts.reduce((sum, { count }) => sum + count, 0);
}
