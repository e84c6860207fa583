import type { RequestHandler, Response } from 'express';
import type { Db } from '../../lib/db';
import type { Actor } from '../../lib/actor';
import { SESSION_TOKEN_PREFIX } from '../../lib/secrets';
import { findMemberSession } from '../../domain/dashboard/sessions';
import { DomainError } from '../../domain/errors';
import { isUuid } from '../../domain/ids';
import { bearerToken } from './api-key-auth';

export interface SessionAuth {
  memberId: string;
  organizationId: string;
  role: 'owner' | 'admin' | 'member';
}

export function sessionAuthOf(res: Response): SessionAuth {
  return res.locals.sessionAuth as SessionAuth;
}

const invalidSession = () => new DomainError('invalid_session', 'Invalid or expired dashboard session');

/**
 * Dashboard session auth for `/api/organizations/{org_public_id}/...`. An `ak_`
 * key is refused like any other non-session token. A session of another
 * organization gets 404 (the organization is not revealed); a session without
 * the owner or admin role gets 403.
 */
export function sessionAuth(db: Db, roles: SessionAuth['role'][]): RequestHandler {
  return async (req, res, next) => {
    const token = bearerToken(req);
    if (token === undefined) throw new DomainError('auth_required', 'No dashboard session provided');
    if (token === null || !token.startsWith(SESSION_TOKEN_PREFIX)) throw invalidSession();

    const session = await findMemberSession(db, token);
    if (!session) throw invalidSession();
    const orgPublicId = String(req.params.org_public_id ?? '');
    if (!isUuid(orgPublicId) || session.organizationPublicId !== orgPublicId.toLowerCase()) {
      throw new DomainError('not_found', 'No such organization');
    }
    if (!roles.includes(session.role)) {
      throw new DomainError('insufficient_role', 'Only organization owners and admins can manage API keys');
    }
    res.locals.sessionAuth = {
      memberId: session.memberId,
      organizationId: session.organizationId,
      role: session.role,
    } satisfies SessionAuth;
    res.locals.actor = { type: 'dashboard_user', id: session.memberId } satisfies Actor;
    next();
  };
}
