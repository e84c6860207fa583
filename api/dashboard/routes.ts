/**
 * The dashboard on `{platform_url}/dashboard`: sign-in by one-time link and the
 * pages (one HTML shell; the browser app renders them from the dashboard's
 * JSON endpoints, declared in operations.ts).
 */
import path from 'node:path';
import express, { Router, type Request } from 'express';
import { csrfTokenFor } from '../../lib/csrf';
import type { Db } from '../../lib/db';
import { labelRoute } from '../../lib/http-metrics';
import { endDashboardSession, redeemLoginLink } from '../../domain/dashboard/sessions';
import { DomainError } from '../../domain/errors';
import { shellPage, signInPage } from './pages';
import {
  clearSessionCookie,
  dashboardAuthOf,
  DASHBOARD_PREFIX,
  loadDashboardSession,
  requireCsrf,
  securityHeaders,
  sessionTokenOf,
  setSessionCookie,
} from './session-cookie';

/** Where scripts/build-dashboard.ts writes the browser bundle. */
export const DASHBOARD_BUNDLE_DIR = path.resolve(__dirname, '../../generated/dashboard');

const PAGE_PATHS = ['/', '/campaigns/:campaign_id', '/keys', '/account', '/activity', '/review', '/live'];

/**
 * Whether a form post comes from the dashboard's own page: browsers say so in
 * Sec-Fetch-Site; without it, a real Origin must be ours. (Origin alone is not
 * enough: under our no-referrer policy a browser sends `Origin: null`.)
 */
function fromDashboardItself(req: Request): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined) return site === 'same-origin' || site === 'none';
  const origin = req.headers.origin;
  return origin === undefined || origin === 'null' || origin === `${req.protocol}://${req.get('host')}`;
}

/** The dashboard's pages, sign-in and sign-out (its JSON endpoints: operations.ts). */
export function dashboardRoutes(db: Db): Router {
  const forms = express.urlencoded({ extended: false, limit: '4kb' });

  const router = Router();
  router.use((_req, res, next) => {
    securityHeaders(res);
    next();
  });
  router.use('/assets', labelRoute('/dashboard/assets'), express.static(DASHBOARD_BUNDLE_DIR, { index: false, fallthrough: true, cacheControl: false }));
  router.use(loadDashboardSession(db));

  // --- Sign-in and sign-out -------------------------------------------------
  router.get('/login', labelRoute('/dashboard/login'), (req, res) => {
    const token = typeof req.query.token === 'string' ? req.query.token : null;
    res.type('html').send(signInPage(token));
  });
  router.post('/login', labelRoute('/dashboard/login'), forms, async (req, res) => {
    // Login CSRF: another site must not sign this browser in to the attacker's account.
    if (!fromDashboardItself(req)) throw new DomainError('csrf_failed', 'Sign-in must be submitted from the dashboard itself');
    const token = (req.body as Record<string, unknown> | undefined)?.token;
    const redeemed = await redeemLoginLink(db, typeof token === 'string' ? token : '');
    if (!redeemed) {
      res.status(401).type('html').send(signInPage(null, 'This sign-in link is invalid, expired or already used. Ask for a new one.'));
      return;
    }
    // A sign-in replaces whatever session the browser held.
    const previous = sessionTokenOf(req);
    if (previous) await endDashboardSession(db, previous);
    setSessionCookie(req, res, redeemed.sessionToken);
    res.redirect(303, `${DASHBOARD_PREFIX}/${redeemed.principal.kind === 'staff' ? 'review' : ''}`);
  });
  router.post('/logout', labelRoute('/dashboard/logout'), forms, requireCsrf, async (req, res) => {
    const auth = dashboardAuthOf(res);
    if (auth) await endDashboardSession(db, auth.token);
    clearSessionCookie(req, res);
    res.redirect(303, `${DASHBOARD_PREFIX}/login`);
  });

  // --- Pages: the shell, or the sign-in page when signed out ---------------
  router.get(PAGE_PATHS, labelRoute('/dashboard/pages'), (_req, res) => {
    const auth = dashboardAuthOf(res);
    if (!auth) return res.redirect(303, `${DASHBOARD_PREFIX}/login`);
    res.type('html').send(shellPage(auth.principal, csrfTokenFor(auth.token)));
  });

  return router;
}
