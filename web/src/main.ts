/** The dashboard's browser app: one shell page from the server, each page rendered from the dashboard's JSON. */
import { accountPage } from './pages/account';
import { activityPage } from './pages/activity';
import { campaignPage } from './pages/campaign';
import { keysPage } from './pages/keys';
import { overviewPage } from './pages/overview';
import { staffPage } from './pages/review';

function route(main: HTMLElement): Promise<void> {
  const path = location.pathname.replace(/\/+$/, '');
  const campaign = /^\/dashboard\/campaigns\/([^/]+)$/.exec(path);
  if (campaign) return campaignPage(main, decodeURIComponent(campaign[1]));
  if (path === '/dashboard/keys') return keysPage(main);
  if (path === '/dashboard/account') return accountPage(main);
  if (path === '/dashboard/activity') return activityPage(main);
  if (path === '/dashboard/review') return staffPage(main, 'review');
  if (path === '/dashboard/live') return staffPage(main, 'live');
  return overviewPage(main);
}

document.addEventListener('DOMContentLoaded', () => {
  const main = document.getElementById('main')!;
  // The current page is marked in the navigation.
  for (const link of document.querySelectorAll<HTMLAnchorElement>('nav a')) {
    if (link.pathname.replace(/\/+$/, '') === location.pathname.replace(/\/+$/, '')) link.setAttribute('aria-current', 'page');
  }
  void route(main).then(() => document.body.setAttribute('data-ready', 'true'));
});
