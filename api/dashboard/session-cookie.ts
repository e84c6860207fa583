import type { Request, RequestHandler, Response } from 'express';
import { config } from '../../lib/config';
import { csrfTokenMatches } from '../../lib/csrf';
import type { Db } from '../../lib/db';
import type { Actor } from '../../lib/actor';
import { DomainError } from '../../domain/errors';
import { findDashboardSession, type DashboardPrincipal, type MemberPrincipal } from '../../domain/dashboard/sessions';
import { normalizeIp } from '../../domain/events/client-ip';
import type { Role } from '../../domain/organizations/service';

/**
 * The dashboard's session cookie: HttpOnly (page scripts never see the
 * token), SameSite=Strict, Secure whenever the dashboard is served over HTTPS,
 * scoped to the dashboard's paths.
 */
export const COOKIE_NAME = 'dashboard_session';
export const DASHBOARD_PREFIX = '/dashboard';
export const CSRF_HEADER = 'x-csrf-token';
export const CSRF_FIELD = '_csrf';

/**
 * Served over HTTPS: a TLS socket, a public URL that says https, or a trusted
 * proxy (config.trustedProxies) that terminated TLS and says so in
 * `X-Forwarded-Proto` (its first value; anyone else's header is ignored).
 */
function isHttps(req: Request): boolean {
  if ((req.socket as { encrypted?: boolean }).encrypted || config.api.publicUrl.startsWith('https:')) return true;
  if (!config.trustedProxies.has(normalizeIp(req.socket.remoteAddress ?? ''))) return false;
  const proto = req.headers['x-forwarded-proto'];
  return (Array.isArray(proto) ? proto[0] : (proto ?? '')).split(',')[0].trim().toLowerCase() === 'https';
}

function cookieAttributes(req: Request, maxAgeSeconds: number): string {
  return [`Path=${DASHBOARD_PREFIX}`, `Max-Age=${maxAgeSeconds}`, 'HttpOnly', 'SameSite=Strict', ...(isHttps(req) ? ['Secure'] : [])].join('; ');
}

export function setSessionCookie(req: Request, res: Response, token: string): void {
  res.append('Set-Cookie', `${COOKIE_NAME}=${token}; ${cookieAttributes(req, config.dashboard.sessionTtlSeconds)}`);
}

export function clearSessionCookie(req: Request, res: Response): void {
  res.append('Set-Cookie', `${COOKIE_NAME}=; ${cookieAttributes(req, 0)}`);
}

/** The session token in the request's cookie, if any. */
export function sessionTokenOf(req: Request): string | null {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === COOKIE_NAME) return part.slice(eq + 1).trim() || null;
  }
  return null;
}

export interface DashboardAuth {
  token: string;
  principal: DashboardPrincipal;
}

export const dashboardAuthOf = (res: Response): DashboardAuth | undefined => res.locals.dashboardAuth as DashboardAuth | undefined;

/** Resolves the cookie's session (if any) into `res.locals.dashboardAuth`; refusing is up to each route. */
export function loadDashboardSession(db: Db): RequestHandler {
  return async (req, res, next) => {
    const token = sessionTokenOf(req);
    const principal = token ? await findDashboardSession(db, token) : null;
    if (token && principal) {
      res.locals.dashboardAuth = { token, principal } satisfies DashboardAuth;
      res.locals.actor = (
        principal.kind === 'member' ? { type: 'dashboard_user', id: principal.memberId } : { type: 'staff', id: principal.name }
      ) satisfies Actor;
    }
    next();
  };
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Every state change of a signed-in session carries the session's CSRF token
 * (header `X-CSRF-Token`, or the form field `_csrf`), checked in constant time.
 */
export const requireCsrf: RequestHandler = (req, res, next) => {
  const auth = dashboardAuthOf(res);
  if (SAFE_METHODS.has(req.method) || !auth) return next();
  const given = req.headers[CSRF_HEADER] ?? (req.body as Record<string, unknown> | undefined)?.[CSRF_FIELD];
  if (!csrfTokenMatches(auth.token, given)) throw new DomainError('csrf_failed', 'Missing or wrong CSRF token; reload the page and try again');
  next();
};

const SIGN_IN = 'Sign in to the dashboard with a link from `adctl login-link`';

/**
 * A state change without a session is refused before its body is read (and its
 * connection closed), so a signed-out client cannot hold a socket by trickling one.
 */
export const requireSessionBeforeBody: RequestHandler = (req, res, next) => {
  if (SAFE_METHODS.has(req.method) || dashboardAuthOf(res)) return next();
  res.set('Connection', 'close');
  throw new DomainError('auth_required', SIGN_IN);
};

function signedIn(res: Response): DashboardPrincipal {
  const auth = dashboardAuthOf(res);
  if (!auth) throw new DomainError('auth_required', SIGN_IN);
  return auth.principal;
}

/** A member of an organization (any role unless `roles` narrows it); staff and strangers are refused. */
export function memberOf(res: Response, roles: Role[] = ['owner', 'admin', 'member']): MemberPrincipal {
  const principal = signedIn(res);
  if (principal.kind !== 'member') throw new DomainError('insufficient_role', 'This page is for members of an organization');
  if (!roles.includes(principal.role)) throw new DomainError('insufficient_role', `Only ${roles.join(' and ')} members may do this`);
  return principal;
}

export function staffOf(res: Response): void {
  if (signedIn(res).kind !== 'staff') throw new DomainError('insufficient_role', 'Only staff reviewers may do this');
}

/** No dashboard answer is cached, framed, or given scripts from anywhere but the dashboard itself. */
export function securityHeaders(res: Response): void {
  res.set({
    'Content-Security-Policy': "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
  });
}
