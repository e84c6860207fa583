/**
 * Key sprawl (issue 7, item 2): a rotation ends the grace of keys still in
 * grace (never more than two valid keys), minting is rate limited per
 * organization (429 in the platform envelope with Retry-After), and the grace
 * workflow of a key retired early is ended, on the Temporal dev server.
 */
import type { WorkflowExecutionStatusName } from '@temporalio/client';
import { mintApiKey } from '../domain/api-keys/service';
import { createMember } from '../domain/organizations/service';
import { config } from '../lib/config';
import { hashSecret } from '../lib/secrets';
import { createTemporalClient } from '../lib/temporal';
import { endKeyRotationGrace, settleKeyRotation } from '../workflows/clients/key-rotation-grace';
import { keyRotationGraceWorkflowId } from '../workflows/key-rotation-grace';
import { organizationIdOf } from './support/fixtures';
import { call, newOrg, useHarness } from './support/harness';

const h = useHarness();
const temporal = createTemporalClient();
beforeAll(async () => {});
/** Every grace workflow these tests may have started runs 30 minutes: end them. */
const keyIds: string[] = [];
afterAll(async () => {
  await Promise.allSettled(keyIds.map((id) => temporal.workflow.getHandle(keyRotationGraceWorkflowId(id)).terminate('test cleanup')));
  await temporal.connection.close();
});

const v1Status = async (secret: string) => (await call(h.url, 'GET', '/v1/ad_account', { token: secret })).status;

async function ownerOf(org: Awaited<ReturnType<typeof newOrg>>) {
  const organizationId = await organizationIdOf(h.db, org);
  return { organizationId, session: (await createMember(h.db, organizationId, 'owner')).session_token };
}

async function mintOverHttp(org: { org_public_id: string }, session: string) {
  const res = await call(h.url, 'POST', `/api/organizations/${org.org_public_id}/api-keys/`, { token: session, body: { name: 'k' } });
  const organizationId = await organizationIdOf(h.db, org.org_public_id);
  keyIds.push(...(await h.db.apiKey.findMany({ where: { organizationId }, select: { id: true } })).map((k) => k.id));
  return res;
}

test('five rotations leave two valid keys, not six', async () => {
  const org = await newOrg(h.db);
  const { session } = await ownerOf(org);
  const secrets = [org.api_key];
  for (let i = 0; i < 5; i++) {
    const res = await mintOverHttp(org, session);
    expect(res.status).toBe(201);
    secrets.push(res.body.data.api_key.secret);
  }
  const statuses = [];
  for (const secret of secrets) statuses.push(await v1Status(secret));
  // The newest key and the one it rotated out (in its grace window); every older one is refused.
  expect(statuses).toEqual([401, 401, 401, 401, 200, 200]);
  const listed = await call(h.url, 'GET', `/api/organizations/${org.org_public_id}/api-keys/`, { token: session });
  const valid = listed.body.data.api_keys.filter((k: { expires_at: string | null }) => k.expires_at === null || Date.parse(k.expires_at) > Date.now());
  expect(valid).toHaveLength(2);
});

test('minting is rate limited per organization: 429 rate_limit_exceeded in the envelope with Retry-After', async () => {
  const saved = config.rateLimits.apiKeyMintsPerOrgPerHour;
  config.rateLimits.apiKeyMintsPerOrgPerHour = 3;
  try {
    const [org, other] = [await newOrg(h.db), await newOrg(h.db)]; // creating each org is its first mint
    const { session } = await ownerOf(org);
    expect((await mintOverHttp(org, session)).status).toBe(201);
    expect((await mintOverHttp(org, session)).status).toBe(201);
    const refused = await mintOverHttp(org, session);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      success: false,
      data: null,
      error: { code: 'rate_limit_exceeded', message: expect.any(String), param: null },
      meta: { request_id: refused.headers.get('request-id') },
    });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // The refused mint changed nothing: still one active key, the last one minted.
    expect(await h.db.apiKey.count({ where: { organization: { publicId: org.org_public_id }, isActive: true } })).toBe(1);
    // Another organization has its own budget.
    const otherOwner = await ownerOf(other);
    expect((await mintOverHttp(other, otherOwner.session)).status).toBe(201);
  } finally {
    config.rateLimits.apiKeyMintsPerOrgPerHour = saved;
  }
});

async function statusOf(apiKeyId: string): Promise<WorkflowExecutionStatusName> {
  return (await temporal.workflow.getHandle(keyRotationGraceWorkflowId(apiKeyId)).describe()).status.name;
}

test('a rotation ends the grace workflow of the key it retires early', async () => {
  const org = await newOrg(h.db);
  const organizationId = await organizationIdOf(h.db, org);
  const first = await mintApiKey(h.db, organizationId, 'second');
  await settleKeyRotation(temporal, first, 30_000);
  const firstGrace = first.rotatedOut!.id;
  keyIds.push(firstGrace);
  expect(await statusOf(firstGrace)).toBe('RUNNING');

  const second = await mintApiKey(h.db, organizationId, 'third');
  expect(second.retiredEarly).toEqual([firstGrace]);
  await settleKeyRotation(temporal, second, 30_000);
  keyIds.push(second.rotatedOut!.id);
  // Cancellation is a request: wait for the workflow to end on it.
  await expect(temporal.workflow.getHandle(keyRotationGraceWorkflowId(firstGrace)).result()).rejects.toThrow();
  expect(await statusOf(firstGrace)).toBe('CANCELLED');
  expect(await statusOf(second.rotatedOut!.id)).toBe('RUNNING');
  // The retired key is refused, the rotated-out one still in grace.
  const retired = await h.db.apiKey.findUniqueOrThrow({ where: { id: firstGrace } });
  expect(retired.revokedAt).not.toBeNull();
  expect(await v1Status(org.api_key)).toBe(401);
  const stillValid = await h.db.apiKey.findUniqueOrThrow({ where: { id: second.rotatedOut!.id } });
  expect(stillValid.secretHash).toBe(hashSecret(first.record.secret));
  expect(await v1Status(first.record.secret)).toBe(200);

  // Ending a grace that has no workflow (or an ended one) is harmless.
  await expect(endKeyRotationGrace(temporal, firstGrace)).resolves.toBeUndefined();
  await expect(endKeyRotationGrace(temporal, '00000000-0000-0000-0000-000000000000')).resolves.toBeUndefined();
});

test('over HTTP: a mint starts the grace of the key it rotates out; revoking that key ends its grace workflow', async () => {
  const org = await newOrg(h.db);
  const { organizationId, session } = await ownerOf(org);
  const original = await h.db.apiKey.findFirstOrThrow({ where: { organizationId, isActive: true } });
  expect((await mintOverHttp(org, session)).status).toBe(201);
  expect(await statusOf(original.id)).toBe('RUNNING');

  const del = await call(h.url, 'DELETE', `/api/organizations/${org.org_public_id}/api-keys/${original.publicId}/`, { token: session });
  expect(del.status).toBe(200);
  await expect(temporal.workflow.getHandle(keyRotationGraceWorkflowId(original.id)).result()).rejects.toThrow();
  expect(await statusOf(original.id)).toBe('CANCELLED');
  expect(await v1Status(org.api_key)).toBe(401);
});
