/**
 * API-key management on the platform surface (spec: API-key management, API key
 * record, Authentication 2/3/5/6), against the real api, PostgreSQL and Temporal.
 */
import type { Server as HttpServer } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import express from 'express';
import { apiKeyRoutes } from '../api/api-keys/routes';
import { requestId } from '../lib/http/request-id';
import { createMember, createSession } from '../domain/organizations/service';
import { createTemporalClient } from '../lib/temporal';
import { keyRotationGraceWorkflowId } from '../workflows/key-rotation-grace';
import { hashSecret } from '../lib/secrets';
import { call, newOrg, useHarness } from './support/harness';

const h = useHarness();

const GRACE_MS = 30 * 60 * 1000;
const keysPath = (org: string) => `/api/organizations/${org}/api-keys/`;
const keyPath = (org: string, key: string) => `/api/organizations/${org}/api-keys/${key}/`;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The envelope of a session-surface error. */
const envelopeError = (code: string, param: string | null = null) => ({
  success: false,
  data: null,
  error: { code, message: expect.any(String), param },
  meta: { request_id: expect.stringMatching(/^req_/) },
});

const organizationIdOf = async (orgPublicId: string) => (await h.db.organization.findUniqueOrThrow({ where: { publicId: orgPublicId } })).id;

const v1Status = async (secret: string) => (await call(h.url, 'GET', '/v1/ad_account', { token: secret })).status;

/** Rotated-out keys start a 30-minute workflow on the dev server; end them when the file is done. */
const rotatedOutKeyIds: string[] = [];
afterAll(async () => {
  const temporal = createTemporalClient();
  await Promise.allSettled(rotatedOutKeyIds.map((id) => temporal.workflow.getHandle(keyRotationGraceWorkflowId(id)).terminate('test cleanup')));
  await temporal.connection.close();
});
async function rotate(org: { org_public_id: string; session_token: string }, name?: string) {
  const active = await h.db.apiKey.findFirst({ where: { organization: { publicId: org.org_public_id }, isActive: true } });
  if (active) rotatedOutKeyIds.push(active.id);
  return call(h.url, 'POST', keysPath(org.org_public_id), { token: org.session_token, body: name === undefined ? undefined : { name } });
}

describe('POST (mint)', () => {
  test('201, envelope, the full record with its secret (shown once)', async () => {
    const org = await newOrg(h.db);
    const before = Date.now();
    const res = await rotate(org, 'ci key');
    expect(res.status).toBe(201);
    expect(res.body).toStrictEqual({
      success: true,
      data: {
        api_key: {
          public_id: expect.stringMatching(UUID),
          name: 'ci key',
          is_active: true,
          key_preview: expect.any(String),
          secret: expect.stringMatching(/^ak_[A-Za-z0-9_-]{43}$/),
          last_used: null,
          expires_at: null,
          created_at: expect.stringMatching(ISO),
        },
      },
      error: null,
      meta: { request_id: res.headers.get('request-id') },
    });
    const key = res.body.data.api_key;
    expect(key.key_preview).toBe(`${key.secret.slice(0, 6)}…${key.secret.slice(-4)}`);
    expect(key.key_preview).toHaveLength(11);
    expect(Date.parse(key.created_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(key.created_at)).toBeLessThanOrEqual(Date.now() + 1000);
    expect(await v1Status(key.secret)).toBe(200);
  });

  test('name is optional (empty), may be 100 characters, not 101', async () => {
    const org = await newOrg(h.db);
    const noBody = await rotate(org);
    expect(noBody.status).toBe(201);
    expect(noBody.body.data.api_key.name).toBe('');

    const hundred = await rotate(org, 'n'.repeat(100));
    expect(hundred.status).toBe(201);
    expect(hundred.body.data.api_key.name).toBe('n'.repeat(100));

    const activeBefore = await h.db.apiKey.count({ where: { organization: { publicId: org.org_public_id } } });
    const tooLong = await rotate(org, 'n'.repeat(101));
    expect(tooLong.status).toBe(400);
    expect(tooLong.body).toEqual(envelopeError('string_too_long', 'name'));
    // A refused request mints nothing and rotates nothing.
    expect(await h.db.apiKey.count({ where: { organization: { publicId: org.org_public_id } } })).toBe(activeBefore);
    expect(await v1Status(hundred.body.data.api_key.secret)).toBe(200);
  });

  test('bad bodies: malformed JSON, wrong type, unknown field', async () => {
    const org = await newOrg(h.db);
    const path = keysPath(org.org_public_id);
    const malformed = await call(h.url, 'POST', path, { token: org.session_token, rawBody: '{"name":', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual(envelopeError('invalid_json'));

    const wrongType = await call(h.url, 'POST', path, { token: org.session_token, body: { name: 5 } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body).toEqual(envelopeError('invalid_value', 'name'));

    const unknown = await call(h.url, 'POST', path, { token: org.session_token, body: { name: 'x', scopes: ['all'] } });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual(envelopeError('invalid_value', 'scopes'));
  });
});

describe('GET (list)', () => {
  test('newest first, no secret anywhere', async () => {
    const org = await newOrg(h.db);
    const second = await rotate(org, 'second');
    await new Promise((r) => setTimeout(r, 5));
    const third = await rotate(org, 'third');
    const res = await call(h.url, 'GET', keysPath(org.org_public_id), { token: org.session_token });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({
      success: true,
      data: { api_keys: expect.any(Array) },
      error: null,
      meta: { request_id: res.headers.get('request-id') },
    });
    const keys = res.body.data.api_keys;
    expect(keys.map((k: { name: string }) => k.name)).toEqual(['third', 'second', 'default']);
    for (const key of keys) {
      expect(Object.keys(key).sort()).toEqual(['created_at', 'expires_at', 'is_active', 'key_preview', 'last_used', 'name', 'public_id']);
    }
    const text = JSON.stringify(res.body);
    expect(text).not.toContain('secret');
    for (const secret of [org.api_key, second.body.data.api_key.secret, third.body.data.api_key.secret]) {
      expect(text).not.toContain(secret.slice(3));
    }
    expect(keys[0].key_preview).toBe(third.body.data.api_key.key_preview);
  });
});

describe('rotation', () => {
  test('old key keeps working for 30 minutes as inactive; new key works; one active key', async () => {
    const org = await newOrg(h.db);
    const oldRecordBefore = (await call(h.url, 'GET', keysPath(org.org_public_id), { token: org.session_token })).body.data.api_keys[0];
    const at = Date.now();
    const res = await rotate(org, 'rotated');
    expect(res.status).toBe(201);
    const fresh = res.body.data.api_key;
    expect(fresh.secret).not.toBe(org.api_key);

    expect(await v1Status(org.api_key)).toBe(200);
    expect(await v1Status(fresh.secret)).toBe(200);

    const keys = (await call(h.url, 'GET', keysPath(org.org_public_id), { token: org.session_token })).body.data.api_keys;
    expect(keys).toHaveLength(2);
    const [newRecord, oldRecord] = keys;
    expect(newRecord).toMatchObject({ public_id: fresh.public_id, is_active: true, expires_at: null });
    expect(oldRecord.public_id).toBe(oldRecordBefore.public_id);
    expect(oldRecord.is_active).toBe(false);
    const expiresAt = Date.parse(oldRecord.expires_at);
    expect(expiresAt).toBeGreaterThanOrEqual(at + GRACE_MS - 1000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + GRACE_MS + 1000);

    const organizationId = await organizationIdOf(org.org_public_id);
    expect(await h.db.apiKey.count({ where: { organizationId, isActive: true } })).toBe(1);
  });

  test('concurrent mints still leave exactly one active key', async () => {
    const org = await newOrg(h.db);
    const organizationId = await organizationIdOf(org.org_public_id);
    const results = await Promise.all(
      Array.from({ length: 5 }, () => call(h.url, 'POST', keysPath(org.org_public_id), { token: org.session_token, body: { name: 'burst' } })),
    );
    expect(results.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    const keys = await h.db.apiKey.findMany({ where: { organizationId } });
    rotatedOutKeyIds.push(...keys.filter((k) => !k.isActive).map((k) => k.id));
    expect(keys).toHaveLength(6);
    expect(keys.filter((k) => k.isActive)).toHaveLength(1);
    expect(keys.filter((k) => !k.isActive && k.expiresAt !== null)).toHaveLength(5);
  });
});

describe('rotation with Temporal unreachable', () => {
  test('answers while the workflow start is still hanging; the failed start is logged when it ends', async () => {
    // A Temporal address that accepts TCP and never answers: the workflow start hangs
    // (it has no deadline) until the test drops the connection; without retries
    // (no interceptors) it then fails at once, so the test sees it end.
    const sockets = new Set<Socket>();
    let connected!: () => void;
    const firstConnection = new Promise<void>((resolve) => {
      connected = resolve;
    });
    const blackHole = createNetServer((socket) => {
      sockets.add(socket);
      connected();
    });
    await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
    const unreachable = new Client({
      connection: Connection.lazy({ address: `127.0.0.1:${(blackHole.address() as AddressInfo).port}`, interceptors: [] }),
    });
    const app = express().use(requestId).use(apiKeyRoutes(h.db, unreachable));
    const server = await new Promise<HttpServer>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    let loggedOnce!: (message: string) => void;
    const firstLog = new Promise<string>((resolve) => {
      loggedOnce = resolve;
    });
    const logged = jest.spyOn(console, 'error').mockImplementation((message: unknown) => loggedOnce(String(message)));
    try {
      const org = await newOrg(h.db);
      const res = await call(url, 'POST', keysPath(org.org_public_id), { token: org.session_token, body: { name: 'no temporal' } });
      expect(res.status).toBe(201);
      await firstConnection; // the start really was attempted, against a server that never answers
      // The rotation itself is complete: new key works, old key in its grace window.
      expect(await v1Status(res.body.data.api_key.secret)).toBe(200);
      const old = await h.db.apiKey.findFirstOrThrow({ where: { organization: { publicId: org.org_public_id }, isActive: false } });
      expect(old.expiresAt!.getTime()).toBeGreaterThan(Date.now() + GRACE_MS - 60_000);
      expect(await v1Status(org.api_key)).toBe(200);

      // The answer came first: the start is still hanging (it can only end when the
      // connection drops, below). Ending it is logged, not lost.
      expect(logged).not.toHaveBeenCalled();
      for (const socket of sockets) socket.destroy();
      expect(await firstLog).toMatch(/^key rotation grace workflow not started/);
      expect(logged).toHaveBeenCalledTimes(1);
    } finally {
      logged.mockRestore();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await unreachable.connection.close().catch(() => undefined);
      for (const socket of sockets) socket.destroy();
      await new Promise((r) => blackHole.close(r));
    }
  });
});

describe('DELETE (revoke)', () => {
  test('immediate 401 for the key; record inactive with expires_at; idempotent; unknown is 404', async () => {
    const org = await newOrg(h.db);
    const [record] = (await call(h.url, 'GET', keysPath(org.org_public_id), { token: org.session_token })).body.data.api_keys;
    expect(await v1Status(org.api_key)).toBe(200);

    const at = Date.now();
    const res = await call(h.url, 'DELETE', keyPath(org.org_public_id, record.public_id), { token: org.session_token });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({
      success: true,
      data: { public_id: record.public_id, revoked: true },
      error: null,
      meta: { request_id: res.headers.get('request-id') },
    });

    const refused = await call(h.url, 'GET', '/v1/ad_account', { token: org.api_key });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('invalid_api_key');

    const [after] = (await call(h.url, 'GET', keysPath(org.org_public_id), { token: org.session_token })).body.data.api_keys;
    expect(after.is_active).toBe(false);
    expect(after.expires_at).toMatch(ISO);
    expect(Date.parse(after.expires_at)).toBeGreaterThanOrEqual(at - 1000);
    expect(Date.parse(after.expires_at)).toBeLessThanOrEqual(Date.now() + 1000);

    const again = await call(h.url, 'DELETE', keyPath(org.org_public_id, record.public_id), { token: org.session_token });
    expect(again.status).toBe(200);
    expect(again.body.data).toStrictEqual({ public_id: record.public_id, revoked: true });
    // Revoking again does not move the revocation time.
    const [afterAgain] = (await call(h.url, 'GET', keysPath(org.org_public_id), { token: org.session_token })).body.data.api_keys;
    expect(afterAgain.expires_at).toBe(after.expires_at);

    for (const unknown of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const missing = await call(h.url, 'DELETE', keyPath(org.org_public_id, unknown), { token: org.session_token });
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual(envelopeError('not_found', 'key_public_id'));
    }
  });

  test("another organization's key is 404 and stays valid", async () => {
    const [a, b] = await Promise.all([newOrg(h.db), newOrg(h.db)]);
    const [bKey] = (await call(h.url, 'GET', keysPath(b.org_public_id), { token: b.session_token })).body.data.api_keys;
    const res = await call(h.url, 'DELETE', keyPath(a.org_public_id, bKey.public_id), { token: a.session_token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual(envelopeError('not_found', 'key_public_id'));
    expect(await v1Status(b.api_key)).toBe(200);
  });

  test('deleting a rotated-out key ends its grace window at once', async () => {
    const org = await newOrg(h.db);
    const [oldRecord] = (await call(h.url, 'GET', keysPath(org.org_public_id), { token: org.session_token })).body.data.api_keys;
    const fresh = (await rotate(org)).body.data.api_key;
    expect(await v1Status(org.api_key)).toBe(200);

    const at = Date.now();
    const res = await call(h.url, 'DELETE', keyPath(org.org_public_id, oldRecord.public_id), { token: org.session_token });
    expect(res.status).toBe(200);
    expect(await v1Status(org.api_key)).toBe(401);
    expect(await v1Status(fresh.secret)).toBe(200);

    const keys = (await call(h.url, 'GET', keysPath(org.org_public_id), { token: org.session_token })).body.data.api_keys;
    const old = keys.find((k: { public_id: string }) => k.public_id === oldRecord.public_id);
    expect(old.is_active).toBe(false);
    expect(Date.parse(old.expires_at)).toBeLessThanOrEqual(Date.now() + 1000);
    expect(Date.parse(old.expires_at)).toBeGreaterThanOrEqual(at - 1000);
  });
});

describe('who may call', () => {
  test('owner and admin may mint, list and revoke', async () => {
    const org = await newOrg(h.db);
    const admin = await createMember(h.db, await organizationIdOf(org.org_public_id), 'admin');
    for (const token of [org.session_token, admin.session_token]) {
      const minted = await call(h.url, 'POST', keysPath(org.org_public_id), { token, body: { name: 'by role' } });
      expect(minted.status).toBe(201);
      rotatedOutKeyIds.push(...(await h.db.apiKey.findMany({ where: { organization: { publicId: org.org_public_id }, isActive: false } })).map((k) => k.id));
      expect((await call(h.url, 'GET', keysPath(org.org_public_id), { token })).status).toBe(200);
      const revoked = await call(h.url, 'DELETE', keyPath(org.org_public_id, minted.body.data.api_key.public_id), { token });
      expect(revoked.status).toBe(200);
    }
  });

  test('member is 403 insufficient_role on every method, and nothing changes', async () => {
    const org = await newOrg(h.db);
    const organizationId = await organizationIdOf(org.org_public_id);
    const member = await createMember(h.db, organizationId, 'member');
    const [record] = (await call(h.url, 'GET', keysPath(org.org_public_id), { token: org.session_token })).body.data.api_keys;
    const attempts = [
      call(h.url, 'POST', keysPath(org.org_public_id), { token: member.session_token, body: { name: 'nope' } }),
      call(h.url, 'GET', keysPath(org.org_public_id), { token: member.session_token }),
      call(h.url, 'DELETE', keyPath(org.org_public_id, record.public_id), { token: member.session_token }),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual(envelopeError('insufficient_role'));
    }
    expect(await h.db.apiKey.count({ where: { organizationId } })).toBe(1);
    expect(await v1Status(org.api_key)).toBe(200);
  });

  test('an ak_ key is 401 invalid_session; no header is 401 auth_required', async () => {
    const org = await newOrg(h.db);
    for (const method of ['POST', 'GET'] as const) {
      const withKey = await call(h.url, method, keysPath(org.org_public_id), { token: org.api_key });
      expect(withKey.status).toBe(401);
      expect(withKey.body).toEqual(envelopeError('invalid_session'));
      const without = await call(h.url, method, keysPath(org.org_public_id));
      expect(without.status).toBe(401);
      expect(without.body).toEqual(envelopeError('auth_required'));
    }
    expect(await h.db.apiKey.count({ where: { organization: { publicId: org.org_public_id } } })).toBe(1);
  });

  test('unknown or expired sessions are 401 invalid_session', async () => {
    const org = await newOrg(h.db);
    const organizationId = await organizationIdOf(org.org_public_id);
    const owner = await h.db.member.findFirstOrThrow({ where: { organizationId, role: 'owner' } });
    const expired = await createSession(h.db, owner.id);
    await h.db.dashboardSession.update({ where: { tokenHash: hashSecret(expired) }, data: { expiresAt: new Date(Date.now() - 1000) } });
    for (const token of [`sess_${'x'.repeat(43)}`, expired, 'garbage']) {
      const res = await call(h.url, 'GET', keysPath(org.org_public_id), { token });
      expect(res.status).toBe(401);
      expect(res.body).toEqual(envelopeError('invalid_session'));
    }
  });

  test('a session of another organization is 404 not_found, as is an unknown organization', async () => {
    const [a, b] = await Promise.all([newOrg(h.db), newOrg(h.db)]);
    for (const path of [keysPath(b.org_public_id), keysPath('00000000-0000-4000-8000-000000000000'), keysPath('nope')]) {
      const res = await call(h.url, 'GET', path, { token: a.session_token });
      expect(res.status).toBe(404);
      expect(res.body).toEqual(envelopeError('not_found'));
    }
    const post = await call(h.url, 'POST', keysPath(b.org_public_id), { token: a.session_token, body: {} });
    expect(post.status).toBe(404);
    expect(await h.db.apiKey.count({ where: { organization: { publicId: b.org_public_id } } })).toBe(1);
  });
});

describe('storage', () => {
  test('secrets and session tokens are stored only as hashes', async () => {
    const org = await newOrg(h.db);
    const minted = (await rotate(org, 'stored')).body.data.api_key;
    const organizationId = await organizationIdOf(org.org_public_id);
    const keyRows = await h.db.$queryRaw<Record<string, unknown>[]>`SELECT * FROM api_keys WHERE organization_id = ${organizationId}::uuid`;
    expect(keyRows).toHaveLength(2);
    const sessionRows = await h.db.$queryRaw<Record<string, unknown>[]>`
      SELECT s.* FROM dashboard_sessions s JOIN members m ON m.id = s.member_id WHERE m.organization_id = ${organizationId}::uuid`;
    expect(sessionRows).toHaveLength(1);
    const stored = JSON.stringify([...keyRows, ...sessionRows], (_k, v) => (typeof v === 'bigint' ? String(v) : v));
    for (const secret of [org.api_key, minted.secret, org.session_token]) {
      const body = secret.replace(/^(ak_|sess_)/, '');
      expect(stored).not.toContain(body);
      // Not even a large fragment of it.
      expect(stored).not.toContain(body.slice(4, 24));
    }
    expect(keyRows.map((r) => r.secret_hash).sort()).toEqual([hashSecret(org.api_key), hashSecret(minted.secret)].sort());
  });
});
