/**
 * The dashboard's server-rendered HTML: the sign-in page (no script needed)
 * and the shell every other page boots from (generated/dashboard/app.js,
 * built from web/ by scripts/build-dashboard.ts).
 */
import type { DashboardPrincipal } from '../../domain/dashboard/sessions';
import { CSRF_FIELD, DASHBOARD_PREFIX } from './session-cookie';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function layout(title: string, body: string, head = ''): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Chat ads dashboard</title>
<link rel="stylesheet" href="${DASHBOARD_PREFIX}/assets/app.css">
${head}
</head>
<body>
<a class="skip-link" href="#main">Skip to content</a>
${body}
</body>
</html>`;
}

/** The one-time link's landing page: a button, so link scanners that prefetch URLs never use the link up. */
export function signInPage(token: string | null, error?: string): string {
  const form = token
    ? `<form method="post" action="${DASHBOARD_PREFIX}/login">
  <input type="hidden" name="token" value="${escapeHtml(token)}">
  <button type="submit" class="primary">Sign in</button>
</form>`
    : '';
  const message = error
    ? `<p role="alert" class="error">${escapeHtml(error)}</p>`
    : token
      ? '<p>This one-time link signs you in to the dashboard.</p>'
      : '<p>Ask an operator for a sign-in link (<code>adctl login-link</code>).</p>';
  return layout(
    'Sign in',
    `<main id="main" class="narrow">
<h1>Chat ads dashboard</h1>
${message}
${form}
</main>`,
  );
}

/** The shell of the signed-in pages: who is signed in, the CSRF token, navigation, and the app's script. */
export function shellPage(principal: DashboardPrincipal, csrfToken: string): string {
  const links =
    principal.kind === 'staff'
      ? [
          ['review', 'Review queue'],
          ['live', 'Live campaigns'],
        ]
      : [['', 'Campaigns'], ...(principal.role === 'member' ? [] : [['keys', 'API keys']]), ['account', 'Account'], ['activity', 'Activity']];
  const who = principal.kind === 'staff' ? `Reviewer ${escapeHtml(principal.name)}` : `${escapeHtml(principal.organizationName)} · ${principal.role}`;
  const head = `<meta name="csrf-token" content="${csrfToken}">
<script src="${DASHBOARD_PREFIX}/assets/app.js" defer></script>`;
  return layout(
    'Dashboard',
    `<header class="top">
<nav aria-label="Main">
<ul>${links.map(([path, label]) => `<li><a href="${DASHBOARD_PREFIX}/${path}">${label}</a></li>`).join('')}</ul>
</nav>
<p class="who">${who}</p>
<form method="post" action="${DASHBOARD_PREFIX}/logout" class="signout">
<input type="hidden" name="${CSRF_FIELD}" value="${csrfToken}">
<button type="submit">Sign out</button>
</form>
</header>
<main id="main" tabindex="-1"><p>Loading…</p></main>`,
    head,
  );
}
