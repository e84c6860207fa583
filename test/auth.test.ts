/**
 * `/v1` authentication (spec: Authentication) and the ad account resource,
 * against the real api over PostgreSQL.
 */
import { mintApiKey, revokeApiKey } from '../domain/api-keys/service';
import { deleteOrganization } from '../domain/organizations/service';
import { settleBackgroundWrites } from '../lib/db';
import { hashSecret } from '../lib/secrets';
import { call, errorBody, newOrg, useHarness } from './support/harness';

const h = useHarness();

/** Raw response, so bodies can be compared byte for byte. */
async function rawGet(path: string, authorization?: string) {
  const res = await fetch(`${h.url}${path}`, { headers: authorization === undefined ? {} : { authorization } });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

const keyRow = (secret: string) => h.db.apiKey.findUniqueOrThrow({ where: { secretHash: hashSecret(secret) } });

describe('missing Authorization header', () => {
  test('401 auth_required, type authentication_error', async () => {
    const res = await call(h.url, 'GET', '/v1/ad_account');
    expect(res.status).toBe(401);
    expect(res.body).toEqual(errorBody('auth_required', 'authentication_error'));
    expect(res.headers.get('www-authenticate')).toBeNull();
  });
});

describe('rejected keys', () => {
  test('every rejected header or key gets the same 401 invalid_api_key, byte for byte', async () => {
    const live = await newOrg(h.db);
    const wellFormed = (c: string) => `ak_${c.repeat(43)}`;

    const expired = await newOrg(h.db);
    await h.db.apiKey.update({ where: { secretHash: hashSecret(expired.api_key) }, data: { expiresAt: new Date(Date.now() - 1000) } });

    const revoked = await newOrg(h.db);
    await revokeApiKey(h.db, (await keyRow(revoked.api_key)).organizationId, (await keyRow(revoked.api_key)).publicId);

    const deleted = await newOrg(h.db);
    await deleteOrganization(h.db, (await keyRow(deleted.api_key)).organizationId);

    const cases: Record<string, string> = {
      'Basic scheme': `Basic ${Buffer.from(`${live.api_key}:`).toString('base64')}`,
      'Bearer without token': 'Bearer',
      'another scheme with the key': `Token ${live.api_key}`,
      // The scheme is matched exactly as the spec writes it (`Bearer`).
      'lowercase bearer': `bearer ${live.api_key}`,
      'two tokens': `Bearer ${live.api_key} ${live.api_key}`,
      'non-ak_ token': `Bearer sk_${'a'.repeat(43)}`,
      'ak_ too short': `Bearer ${live.api_key.slice(0, -1)}`,
      'ak_ too long': `Bearer ${live.api_key}A`,
      'ak_ with a character outside base64url': `Bearer ${live.api_key.slice(0, -1)}!`,
      'unknown well-formed key': `Bearer ${wellFormed('Z')}`,
      'expired key': `Bearer ${expired.api_key}`,
      'revoked key': `Bearer ${revoked.api_key}`,
      'key of a deleted organization': `Bearer ${deleted.api_key}`,
      'dashboard session token': `Bearer ${live.session_token}`,
    };
    const results = await Promise.all(Object.entries(cases).map(async ([name, header]) => [name, await rawGet('/v1/ad_account', header)] as const));

    const reference = results[0][1].text;
    expect(JSON.parse(reference)).toEqual({
      error: { message: expect.any(String), type: 'authentication_error', param: null, code: 'invalid_api_key' },
    });
    for (const [name, res] of results) {
      expect({ name, status: res.status, text: res.text }).toEqual({ name, status: 401, text: reference });
    }
    // The message reveals nothing about which check failed.
    expect(reference).not.toMatch(/expire|revok|delet|session|format|unknown/i);

    // The live key of the same run is accepted, so the rejections above are about the key.
    expect((await rawGet('/v1/ad_account', `Bearer ${live.api_key}`)).status).toBe(200);
  });

  test('a key whose organization is deleted stops working at once, even though the key itself is untouched', async () => {
    const org = await newOrg(h.db);
    expect((await call(h.url, 'GET', '/v1/ad_account', { token: org.api_key })).status).toBe(200);
    const row = await keyRow(org.api_key);
    await deleteOrganization(h.db, row.organizationId);
    const after = await keyRow(org.api_key);
    expect(after).toMatchObject({ isActive: true, revokedAt: null, expiresAt: null });
    const res = await call(h.url, 'GET', '/v1/ad_account', { token: org.api_key });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(errorBody('invalid_api_key', 'authentication_error'));
  });

  test('an expired key is refused by expires_at alone (no revocation, no workflow)', async () => {
    const org = await newOrg(h.db);
    const row = await keyRow(org.api_key);
    // A key whose grace window ends in the future still works...
    await h.db.apiKey.update({ where: { id: row.id }, data: { isActive: false, expiresAt: new Date(Date.now() + 60_000) } });
    expect((await call(h.url, 'GET', '/v1/ad_account', { token: org.api_key })).status).toBe(200);
    // ...and is refused the moment the window is over.
    await h.db.apiKey.update({ where: { id: row.id }, data: { expiresAt: new Date(Date.now() - 1) } });
    const res = await call(h.url, 'GET', '/v1/ad_account', { token: org.api_key });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(errorBody('invalid_api_key', 'authentication_error'));
  });
});

describe('last_used', () => {
  /** The key's last_used once every background write the api started so far has settled. */
  async function lastUsedOf(secret: string): Promise<Date | null> {
    await settleBackgroundWrites(h.db);
    return (await keyRow(secret)).lastUsedAt;
  }

  test('is null before the first request, set by it, and not rewritten by the next quick request', async () => {
    const org = await newOrg(h.db);
    expect((await keyRow(org.api_key)).lastUsedAt).toBeNull();

    const before = Date.now();
    expect((await call(h.url, 'GET', '/v1/ad_account', { token: org.api_key })).status).toBe(200);
    const first = await lastUsedOf(org.api_key);
    expect(first).not.toBeNull();
    expect(first!.getTime()).toBeGreaterThanOrEqual(before - 5);
    expect(first!.getTime()).toBeLessThanOrEqual(Date.now());

    // A second request within the minute: the write it would start has settled, and changed nothing.
    expect((await call(h.url, 'GET', '/v1/ad_account', { token: org.api_key })).status).toBe(200);
    expect(await lastUsedOf(org.api_key)).toEqual(first);

    // Once the stored value is over a minute old, the next request refreshes it.
    const stale = new Date(Date.now() - 61_000);
    await h.db.apiKey.update({ where: { secretHash: hashSecret(org.api_key) }, data: { lastUsedAt: stale } });
    expect((await call(h.url, 'GET', '/v1/ad_account', { token: org.api_key })).status).toBe(200);
    const refreshed = await lastUsedOf(org.api_key);
    expect(refreshed!.getTime()).toBeGreaterThan(stale.getTime() + 60_000);

    // The key-management endpoint shows the same value as an ISO 8601 string.
    const list = await call(h.url, 'GET', `/api/organizations/${org.org_public_id}/api-keys/`, { token: org.session_token });
    expect(list.status).toBe(200);
    expect(list.body.data.api_keys[0].last_used).toBe(refreshed!.toISOString());
  });

  test('is not touched by a rejected request', async () => {
    const org = await newOrg(h.db);
    const row = await keyRow(org.api_key);
    await h.db.apiKey.update({ where: { id: row.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await call(h.url, 'GET', '/v1/ad_account', { token: org.api_key })).status).toBe(401);
    expect(await lastUsedOf(org.api_key)).toBeNull();
  });
});

describe('GET /v1/ad_account', () => {
  test('the default ad account, exactly the spec fields; url falls back to the organization domain', async () => {
    const org = await newOrg(h.db, { domain: 'shop.example.org' });
    const res = await call(h.url, 'GET', '/v1/ad_account', { token: org.api_key });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const account = await h.db.adAccount.findUniqueOrThrow({ where: { id: org.ad_account_id } });
    expect(res.body).toStrictEqual({
      id: org.ad_account_id,
      name: account.name,
      url: 'shop.example.org',
      timezone: 'UTC',
      currency_code: 'USD',
    });
    expect(Object.keys(res.body)).not.toContain('preview_url');
  });

  test("the account's own url wins over the domain; preview_url appears once a logo is set", async () => {
    const org = await newOrg(h.db, { domain: 'shop.example.org' });
    await h.db.adAccount.update({
      where: { id: org.ad_account_id },
      data: { url: 'https://brand.example.org/', logoUrl: 'https://cdn.example.org/logo.png', name: 'Brand' },
    });
    const res = await call(h.url, 'GET', '/v1/ad_account', { token: org.api_key });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({
      id: org.ad_account_id,
      name: 'Brand',
      url: 'https://brand.example.org/',
      timezone: 'UTC',
      currency_code: 'USD',
      preview_url: 'https://cdn.example.org/logo.png',
    });
  });

  test('url is an empty string when neither the account nor the organization has one', async () => {
    const org = await newOrg(h.db, { domain: undefined });
    const res = await call(h.url, 'GET', '/v1/ad_account', { token: org.api_key });
    expect(res.status).toBe(200);
    expect(res.body.url).toBe('');
    expect(res.body.id).toBe(org.ad_account_id);
  });

  test('each key sees its own organization’s account', async () => {
    const [a, b] = await Promise.all([newOrg(h.db), newOrg(h.db)]);
    const [ra, rb] = await Promise.all([
      call(h.url, 'GET', '/v1/ad_account', { token: a.api_key }),
      call(h.url, 'GET', '/v1/ad_account', { token: b.api_key }),
    ]);
    expect(ra.body.id).toBe(a.ad_account_id);
    expect(rb.body.id).toBe(b.ad_account_id);
    expect(a.ad_account_id).not.toBe(b.ad_account_id);
  });

  test('an organization without an ad account gets 404 not_found', async () => {
    const org = await newOrg(h.db, { withAdAccount: false });
    expect(org.ad_account_id).toBeNull();
    const res = await call(h.url, 'GET', '/v1/ad_account', { token: org.api_key });
    expect(res.status).toBe(404);
    expect(res.body).toEqual(errorBody('not_found'));
  });

  test('a key minted by rotation authenticates like the first one', async () => {
    const org = await newOrg(h.db);
    const { organizationId } = await keyRow(org.api_key);
    const minted = await mintApiKey(h.db, organizationId, 'second');
    const res = await call(h.url, 'GET', '/v1/ad_account', { token: minted.record.secret });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(org.ad_account_id);
  });
});
