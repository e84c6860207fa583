/**
 * Real headless Chromium (Debian's `chromium`, installed by scripts/bootstrap.sh
 * in test mode) driven by playwright-core. Every browser request that is not
 * for 127.0.0.1 is aborted and recorded, so a test can assert there was none.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOTS = path.resolve(__dirname, '../../test-output/screenshots');

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}

export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1280, height: 900 };

export interface Session {
  context: BrowserContext;
  page: Page;
  outside: string[];
}

/** A fresh browser profile (its own cookies) with the loopback-only guard. */
export async function newSession(browser: Browser, viewport = DESKTOP, options: BrowserContextOptions = {}): Promise<Session> {
  const context = await browser.newContext({ ...options, viewport });
  const outside: string[] = [];
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === '127.0.0.1' || url.protocol === 'data:') return route.continue();
    outside.push(url.href);
    return route.abort();
  });
  const page = await context.newPage();
  return { context, page, outside };
}

/** The one-time link's path and query on the harness (adctl prints it under the configured public URL). */
export function linkOn(baseUrl: string, printedUrl: string): string {
  const url = new URL(printedUrl);
  return `${baseUrl}${url.pathname}${url.search}`;
}

/** Opens a sign-in link and presses its button; resolves once the landing page has rendered. */
export async function signIn(page: Page, link: string): Promise<void> {
  await page.goto(link);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/dashboard\/(review)?$/);
  await waitReady(page);
}

/** The app marks <body data-ready> once the page's data has rendered. */
export async function waitReady(page: Page): Promise<void> {
  await page.waitForSelector('body[data-ready="true"]');
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** The page's CSRF token, as the shell serves it. */
export const csrfOf = (page: Page) => page.locator('meta[name="csrf-token"]').getAttribute('content');
