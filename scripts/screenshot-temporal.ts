/**
 * Re-takes docs/screenshots/temporal-campaign-workflows.png: the Temporal UI
 * (the dev server's, http://127.0.0.1:8233) filtered by a campaign's name,
 * showing its workflows (docs/operations.md, "Temporal").
 *
 *   NODE_ENV=test node_modules/.bin/tsx scripts/screenshot-temporal.ts [--name Spring-running-shoes]
 *
 * Against the bootstrapped stores (PostgreSQL, ClickHouse, Temporal): starts a
 * worker and the Stripe emulator (dev/local-stack.ts) and an api process on free
 * loopback ports, creates an organization and a campaign named `--name` (plus a
 * unique suffix) through the API, approves it (its lifecycle starts) and edits
 * an ad (its creative review starts), then screenshots the UI's workflow list
 * for `CampaignName = "<name>"` with headless Chromium (playwright-core,
 * /usr/bin/chromium; every request but loopback is aborted). The campaign's
 * running workflows are terminated afterwards.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { startLocalStack } from '../dev/local-stack';
import { freePort } from '../dev/processes';
import { createOrganization } from '../domain/organizations/service';
import { closeDb, createDb } from '../lib/db';
import { createTemporalClient } from '../lib/temporal';
import { sendReviewVerdict } from '../workflows/clients/campaign-review';
import { campaignLifecycleWorkflowId } from '../workflows/campaign-lifecycle';
import { creativeReviewWorkflowId } from '../workflows/creative-review';

const root = path.resolve(__dirname, '..');
const OUTPUT = path.join(root, 'docs/screenshots/temporal-campaign-workflows.png');
const UI = process.env.TEMPORAL_UI_URL ?? 'http://127.0.0.1:8233';
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const WORKFLOW_TYPES = ['campaignCreation', 'campaignReview', 'campaignLifecycle', 'creativeReview'];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An api process (api/server.ts) on a free loopback port, with its metrics on another. */
async function startApi(): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(path.join(root, 'node_modules/.bin/tsx'), [path.join(root, 'api/server.ts')], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', METRICS_PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  child.stdout.resume();
  const url = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(250)) {
    if (child.exitCode !== null) throw new Error(`the api exited with ${child.exitCode}`);
    if (
      await fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return { url, child };
  }
  throw new Error('the api did not answer /healthz within 60 s');
}

async function call(url: string, key: string, method: string, route: string, body?: unknown): Promise<any> {
  const res = await fetch(`${url}${route}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const answer: unknown = await res.json();
  if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${JSON.stringify(answer)}`);
  return answer;
}

/** A campaign through the API: created, approved (lifecycle), one ad edited (creative review). */
async function campaignWithWorkflows(api: string, key: string, name: string): Promise<{ campaignId: string; adId: string }> {
  const campaign = await call(api, key, 'POST', '/v1/campaigns', {
    name,
    budget: { lifetime_spend_limit_micros: 50_000_000 },
    ad_groups: [
      { name: 'Runners', context_hints: ['running shoes'], ads: [{ creative: { type: 'chat_card', title: 'Run faster', body: 'Light shoes', cta: 'Shop' } }] },
    ],
  });
  const temporal = createTemporalClient();
  try {
    await sendReviewVerdict(temporal, campaign.id, { decision: 'approved' });
  } finally {
    await temporal.connection.close();
  }
  const groups = await call(api, key, 'GET', `/v1/ad_groups?campaign_id=${campaign.id}`);
  const ads = await call(api, key, 'GET', `/v1/ads?ad_group_id=${groups.data[0].id}`);
  await call(api, key, 'POST', `/v1/ads/${ads.data[0].id}`, { creative: { type: 'chat_card', title: 'Run further', body: 'Lighter shoes', cta: 'Shop' } });
  return { campaignId: campaign.id, adId: ads.data[0].id };
}

/** Waits until the visibility store finds all four workflows by the name (what the UI lists). */
async function awaitVisible(query: string): Promise<void> {
  const temporal = createTemporalClient();
  try {
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; await sleep(500)) {
      const types = new Set<string>();
      for await (const wf of temporal.workflow.list({ query })) types.add(wf.type);
      if (WORKFLOW_TYPES.every((t) => types.has(t))) return;
    }
    throw new Error(`the workflows of ${query} did not all show within 30 s`);
  } finally {
    await temporal.connection.close();
  }
}

async function screenshot(query: string): Promise<void> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  try {
    const context = await browser.newContext({ viewport: { width: 1680, height: 620 }, deviceScaleFactor: 1 });
    // Loopback only: anything else the UI asks for (fonts, telemetry) is aborted.
    await context.route('**/*', (route) => {
      const url = new URL(route.request().url());
      return url.hostname === '127.0.0.1' || url.protocol === 'data:' ? route.continue() : route.abort();
    });
    const page = await context.newPage();
    await page.goto(`${UI}/namespaces/default/workflows?query=${encodeURIComponent(query)}`);
    for (const type of WORKFLOW_TYPES) await page.getByText(type, { exact: true }).first().waitFor({ timeout: 30_000 });
    await sleep(500);
    mkdirSync(path.dirname(OUTPUT), { recursive: true });
    await page.screenshot({ path: OUTPUT });
  } finally {
    await browser.close();
  }
}

async function main() {
  const { values } = parseArgs({ options: { name: { type: 'string' } } });
  // No spaces by default: the UI's filter chip shows a value only up to its first space (the query itself is whole).
  const name = `${values.name ?? 'Spring-running-shoes'}-${new Date().toISOString().slice(0, 10)}-${process.pid}`;
  const stack = await startLocalStack('screenshot');
  const api = await startApi();
  const db = createDb(undefined, 2);
  const started: string[] = [];
  try {
    const org = await createOrganization(db, { name: 'Northwind Running', domain: 'northwind.example', paymentMethodId: 'pm_card_visa', withAdAccount: true });
    const { campaignId, adId } = await campaignWithWorkflows(api.url, org.api_key, name);
    started.push(campaignLifecycleWorkflowId(campaignId), creativeReviewWorkflowId(adId));
    const query = `CampaignName = '${name}'`;
    await awaitVisible(query);
    await screenshot(query);
    console.log(JSON.stringify({ screenshot: path.relative(root, OUTPUT), campaign_id: campaignId, campaign_name: name, org_public_id: org.org_public_id }));
  } finally {
    const temporal = createTemporalClient();
    await Promise.allSettled(started.map((id) => temporal.workflow.getHandle(id).terminate('screenshot taken')));
    await temporal.connection.close();
    api.child.kill('SIGTERM');
    await closeDb(db);
    await stack.stop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`screenshot failed: ${(err as Error).stack ?? String(err)}`);
    process.exit(1);
  },
);
