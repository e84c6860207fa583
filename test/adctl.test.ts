/**
 * The operator CLI (DESIGN: Operator CLI), run as operators and other tests run
 * it: the real `bin/adctl` in a child process, over the test database.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { config } from '../lib/config';
import { createTemporalClient } from '../lib/temporal';
import { keyRotationGraceWorkflowId } from '../workflows/key-rotation-grace';
import { adctl, type AdctlRun } from './support/cli';
import { uniquePng } from './support/fixtures';
import { call, newOrg, useHarness } from './support/harness';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const h = useHarness();

type Run = AdctlRun;

/** One JSON object on one line of stdout, nothing on stderr, exit 0. */
function output<T = Record<string, unknown>>(run: Run): T {
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
  expect(run.stdout).toMatch(/^\{.*\}\n$/);
  return JSON.parse(run.stdout) as T;
}

interface CreatedOrg {
  org_public_id: string;
  ad_account_id: string | null;
  api_key: string;
  session_token: string;
}
const unique = (label: string) => `adctl ${label} ${process.pid}-${Date.now()}`;

describe('org create', () => {
  let org: CreatedOrg;
  let bare: CreatedOrg;
  const name = unique('org');
  beforeAll(async () => {
    const [full, noAccount] = await Promise.all([
      adctl('org', 'create', '--name', name, '--domain', 'adctl.example.com', '--payment-method', 'pm_card_visa'),
      adctl('org', 'create', '--name', unique('bare'), '--no-ad-account'),
    ]);
    org = output<CreatedOrg>(full);
    bare = output<CreatedOrg>(noAccount);
  });

  test('prints exactly the four keys', () => {
    expect(Object.keys(org).sort()).toEqual(['ad_account_id', 'api_key', 'org_public_id', 'session_token']);
    expect(org.org_public_id).toMatch(UUID);
    expect(org.ad_account_id).toMatch(UUID);
    expect(org.api_key).toMatch(/^ak_[A-Za-z0-9_-]{43}$/);
    expect(org.session_token).toMatch(/^sess_/);
  });

  test('stores the organization as given', async () => {
    const stored = await h.db.organization.findUniqueOrThrow({ where: { publicId: org.org_public_id }, include: { members: true } });
    expect(stored).toMatchObject({ name, domain: 'adctl.example.com', defaultPaymentMethodId: 'pm_card_visa', deletedAt: null });
    expect(stored.members.map((m) => m.role)).toEqual(['owner']);
  });

  test('the key works on /v1 and shows the printed ad account', async () => {
    const res = await call(h.url, 'GET', '/v1/ad_account', { token: org.api_key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: org.ad_account_id, url: 'adctl.example.com' });
  });

  test("the session is an owner's on the platform surface, and only for its organization", async () => {
    const res = await call(h.url, 'GET', `/api/organizations/${org.org_public_id}/api-keys/`, { token: org.session_token });
    expect(res.status).toBe(200);
    expect(res.body.data.api_keys).toHaveLength(1);
    expect(res.body.data.api_keys[0].key_preview).toBe(`${org.api_key.slice(0, 6)}…${org.api_key.slice(-4)}`);
    const other = await call(h.url, 'GET', `/api/organizations/${bare.org_public_id}/api-keys/`, { token: org.session_token });
    expect(other.status).toBe(404);
    // The key and the session are not interchangeable.
    expect((await call(h.url, 'GET', '/v1/ad_account', { token: org.session_token })).status).toBe(401);
    expect((await call(h.url, 'GET', `/api/organizations/${org.org_public_id}/api-keys/`, { token: org.api_key })).status).toBe(401);
  });

  test('--no-ad-account: ad_account_id null, and /v1/ad_account is 404', async () => {
    expect(Object.keys(bare).sort()).toEqual(['ad_account_id', 'api_key', 'org_public_id', 'session_token']);
    expect(bare.ad_account_id).toBeNull();
    expect(await h.db.adAccount.count({ where: { organization: { publicId: bare.org_public_id } } })).toBe(0);
    const res = await call(h.url, 'GET', '/v1/ad_account', { token: bare.api_key });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });

  // Last in this block: it deletes the organization.
  test('member create: admin gets key-management rights, member gets 403; org delete ends keys and sessions', async () => {
    const [adminRun, memberRun] = await Promise.all([
      adctl('member', 'create', '--org', org.org_public_id, '--role', 'admin'),
      adctl('member', 'create', '--org', org.org_public_id, '--role', 'member'),
    ]);
    const admin = output<{ session_token: string }>(adminRun);
    const member = output<{ session_token: string }>(memberRun);
    expect(Object.keys(admin)).toEqual(['session_token']);
    expect(Object.keys(member)).toEqual(['session_token']);
    expect(admin.session_token).not.toBe(org.session_token);

    const keysPath = `/api/organizations/${org.org_public_id}/api-keys/`;
    const minted = await call(h.url, 'POST', keysPath, { token: admin.session_token, body: { name: 'by admin' } });
    expect(minted.status).toBe(201);
    // The rotation started a 30-minute grace workflow on the dev server; end it now.
    const rotatedOut = await h.db.apiKey.findFirstOrThrow({ where: { organization: { publicId: org.org_public_id }, isActive: false } });
    const temporal = createTemporalClient();
    await temporal.workflow.getHandle(keyRotationGraceWorkflowId(rotatedOut.id)).terminate('test cleanup');
    await temporal.connection.close();

    for (const method of ['GET', 'POST'] as const) {
      const denied = await call(h.url, method, keysPath, { token: member.session_token });
      expect(denied.status).toBe(403);
      expect(denied.body.error.code).toBe('insufficient_role');
    }

    const deleted = output(await adctl('org', 'delete', '--org', org.org_public_id));
    expect(deleted).toStrictEqual({ org_public_id: org.org_public_id, deleted: true });
    expect((await call(h.url, 'GET', '/v1/ad_account', { token: minted.body.data.api_key.secret })).status).toBe(401);
    expect((await call(h.url, 'GET', keysPath, { token: admin.session_token })).status).toBe(401);
  });
});

describe('errors: non-zero exit, a message on stderr, nothing on stdout', () => {
  const cases: Record<string, { args: string[]; stderr: RegExp }> = {
    'org create without --name': { args: ['org', 'create', '--domain', 'x.example'], stderr: /--name is required/ },
    'member create with a bad role': {
      args: ['member', 'create', '--org', '00000000-0000-4000-8000-000000000000', '--role', 'superuser'],
      stderr: /--role must be owner, admin or member/,
    },
    'member create for an unknown organization': {
      args: ['member', 'create', '--org', '00000000-0000-4000-8000-000000000000', '--role', 'admin'],
      stderr: /no such organization/,
    },
    'unknown command': { args: ['org', 'explode'], stderr: /unknown command: org explode/ },
    // Numeric flags take decimal digits only: Number() would read 0x10 as 16, 1e2 as 100 and ' 5' as 5.
    'org list --limit 0x10': { args: ['org', 'list', '--limit', '0x10'], stderr: /--limit must be a decimal integer/ },
    'org list --limit " 5"': { args: ['org', 'list', '--limit', ' 5'], stderr: /--limit must be a decimal integer/ },
    'dead-letters list --limit 1e2': { args: ['dead-letters', 'list', '--limit', '1e2'], stderr: /--limit must be a decimal integer/ },
    'review approve-ad --revision 0x1': {
      args: ['review', 'approve-ad', '00000000-0000-4000-8000-000000000000', '--revision', '0x1'],
      stderr: /--revision must be a decimal integer/,
    },
    'review approve-ad --revision ""': {
      args: ['review', 'approve-ad', '00000000-0000-4000-8000-000000000000', '--revision', ''],
      stderr: /--revision must be a decimal integer/,
    },
    'demo seed --days 0x10': { args: ['demo', 'seed', '--days', '0x10', '--impressions', '0'], stderr: /--days must be a decimal integer/ },
    'demo seed --impressions 1e2': { args: ['demo', 'seed', '--days', '1', '--impressions', '1e2'], stderr: /--impressions must be a decimal integer/ },
  };
  let runs: Record<string, Run>;
  beforeAll(async () => {
    const entries = await Promise.all(Object.entries(cases).map(async ([name, { args }]) => [name, await adctl(...args)] as const));
    runs = Object.fromEntries(entries);
  });

  test.each(Object.keys(cases))('%s', (name) => {
    const run = runs[name];
    expect(run.code).not.toBe(0);
    expect(run.code).not.toBeNull();
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^adctl: /);
    expect(run.stderr).toMatch(cases[name].stderr);
    expect(run.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
  });

  test('nothing was created by the failed commands', async () => {
    expect(await h.db.organization.count({ where: { domain: 'x.example' } })).toBe(0);
  });
});

describe('org update and org list', () => {
  let logo: { bytes: Buffer; sha256: string };
  let logoFile: string;
  let imageServer: http.Server;
  let imageBase: string;
  beforeAll(async () => {
    logo = await uniquePng();
    logoFile = path.join(mkdtempSync(path.join(tmpdir(), 'adctl-logo-')), 'logo.png');
    writeFileSync(logoFile, logo.bytes);
    imageServer = http.createServer((req, res) => {
      if (req.url === '/logo.png') res.writeHead(200, { 'content-type': 'image/png' }).end(logo.bytes);
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => imageServer.listen(0, '127.0.0.1', resolve));
    imageBase = `http://127.0.0.1:${(imageServer.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => imageServer.close(resolve)));

  const assetUrl = `${config.api.publicUrl}/assets/`;

  test('--url, --logo-file and --payment-method: prints the organization; /v1 reads the website and logo back', async () => {
    const org = await newOrg(h.db);
    const args = ['--url', 'https://adctl-shop.example/', '--logo-file', logoFile, '--payment-method', 'pm_card_mastercard'];
    const updated = output<any>(await adctl('org', 'update', '--org', org.org_public_id, ...args));
    expect(updated).toMatchObject({
      org_public_id: org.org_public_id,
      domain: 'example.com',
      ad_account: {
        id: org.ad_account_id,
        website: 'https://adctl-shop.example/',
        url: 'https://adctl-shop.example/',
        preview_url: `${assetUrl}${logo.sha256}.png`,
      },
      payment_method_id: 'pm_card_mastercard',
    });
    const account = await call(h.url, 'GET', '/v1/ad_account', { token: org.api_key });
    expect(account.body).toMatchObject({ url: 'https://adctl-shop.example/', preview_url: `${assetUrl}${logo.sha256}.png` });
    const served = await fetch(`${h.url}/assets/${logo.sha256}.png`);
    expect(Buffer.from(await served.arrayBuffer()).equals(logo.bytes)).toBe(true);

    // An empty --url removes the website: the domain shows again.
    const removed = output<any>(await adctl('org', 'update', '--org', org.org_public_id, '--url', ''));
    expect(removed.ad_account).toMatchObject({ website: null, url: 'example.com' });
  });

  test('--logo-url is downloaded through the SSRF guard: a private address or a failed fetch changes nothing', async () => {
    const org = await newOrg(h.db);
    const fetched = output<any>(await adctl('org', 'update', '--org', org.org_public_id, '--logo-url', `${imageBase}/logo.png`));
    expect(fetched.ad_account.preview_url).toBe(`${assetUrl}${logo.sha256}.png`);
    for (const [url, message] of [
      ['http://10.1.2.3/logo.png', /public internet address/],
      ['http://169.254.169.254/latest/meta-data', /public internet address/],
      [`${imageBase}/missing.png`, /404|status/],
      ['file:///etc/passwd', /http or https/],
    ] as const) {
      const refused = await adctl('org', 'update', '--org', org.org_public_id, '--logo-url', url);
      expect({ code: refused.code, stdout: refused.stdout }).toEqual({ code: 1, stdout: '' });
      expect(refused.stderr).toMatch(message);
    }
    expect((await call(h.url, 'GET', '/v1/ad_account', { token: org.api_key })).body.preview_url).toBe(`${assetUrl}${logo.sha256}.png`);
  });

  test('values are checked as on the dashboard; usage errors exit 2', async () => {
    const org = await newOrg(h.db);
    for (const [flag, value, message] of [
      ['--url', 'ftp://shop.example/', /url must be an absolute http\(s\) URL/],
      ['--url', 'shop.example', /url must be an absolute http\(s\) URL/],
      ['--payment-method', 'visa', /payment_method must be a Stripe payment method id/],
      ['--logo-file', '/nonexistent/logo.png', /ENOENT/],
    ] as const) {
      const refused = await adctl('org', 'update', '--org', org.org_public_id, flag, value);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(message);
    }
    for (const args of [[], ['--logo-file', logoFile, '--logo-url', `${imageBase}/logo.png`], ['--customer', 'cus_1']]) {
      const usage = await adctl('org', 'update', '--org', org.org_public_id, ...args);
      expect(usage.code).toBe(2);
    }
    expect((await adctl('org', 'update', '--org', '00000000-0000-4000-8000-000000000000', '--url', 'https://a.example/')).stderr).toMatch(
      /no such organization/,
    );
    expect((await call(h.url, 'GET', '/v1/ad_account', { token: org.api_key })).body.url).toBe('example.com');
  });

  test('org list: organizations newest first, as org update prints them; --limit bounds it', async () => {
    const org = await newOrg(h.db);
    await adctl('org', 'update', '--org', org.org_public_id, '--url', 'https://listed.example/');
    const { organizations } = output<{ organizations: any[] }>(await adctl('org', 'list', '--limit', '1000'));
    expect(organizations.find((o) => o.org_public_id === org.org_public_id)).toMatchObject({ ad_account: { website: 'https://listed.example/' } });
    const created = organizations.map((o) => Date.parse(o.created_at));
    expect(created).toEqual([...created].sort((a, b) => b - a));
    expect(output<{ organizations: unknown[] }>(await adctl('org', 'list', '--limit', '2')).organizations).toHaveLength(2);
    expect((await adctl('org', 'list', '--limit', '0')).code).toBe(2);
  });

  test('demo seed prints each organization it made with a one-time sign-in link for its owner', async () => {
    // --no-live: ads that serve everywhere would reach other test files' auctions (test/dev/demo-live.test.ts runs the live ones in a country of its own).
    const run = await adctl('demo', 'seed', '--days', '1', '--impressions', '100', '--no-live');
    expect(run.code).toBe(0); // its progress lines go to stderr
    const seeded = JSON.parse(run.stdout);
    expect(seeded.organizations).toHaveLength(3);
    for (const org of seeded.organizations) {
      expect(Object.keys(org).sort()).toEqual(['login_url', 'name', 'org_public_id']);
      expect(org.login_url).toMatch(/\/dashboard\/login\?token=dl_[A-Za-z0-9_-]{43}$/);
    }
    // The link signs in as the organization's owner, once.
    const token = new URL(seeded.organizations[0].login_url).searchParams.get('token')!;
    const signIn = () => fetch(`${h.url}/dashboard/login`, { method: 'POST', body: new URLSearchParams({ token }), redirect: 'manual' });
    const first = await signIn();
    expect(first.status).toBe(303);
    const cookie = first.headers.get('set-cookie')!.split(';')[0];
    const me = await call(h.url, 'GET', '/dashboard/api/me', { headers: { cookie } });
    expect(me.body).toMatchObject({
      kind: 'member',
      role: 'owner',
      organization: { public_id: seeded.organizations[0].org_public_id, name: seeded.organizations[0].name },
    });
    expect((await signIn()).status).toBe(401);
  });
});
