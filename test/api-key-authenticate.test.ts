/**
 * domain/api-keys/authenticate.ts against PostgreSQL: the validity rule, and
 * the last_used write that a close waits for (issue 6: a disconnect racing an
 * untracked write left a session "idle in transaction" and the pool's end()
 * hanging; dev/repro/last-used-hang.ts reproduces it).
 */
import { authenticateApiKey } from '../domain/api-keys/authenticate';
import { closeDb, createDb, type Db } from '../lib/db';
import { hashSecret } from '../lib/secrets';
import { newOrg } from './support/harness';

let db: Db;
beforeAll(() => {
  db = createDb(undefined, 2);
});
afterAll(() => closeDb(db));

const keyRow = (secret: string) => db.apiKey.findUniqueOrThrow({ where: { secretHash: hashSecret(secret) } });

test('a valid key authenticates to its organization and key; revoked, expired and unknown keys do not', async () => {
  const org = await newOrg(db);
  const row = await keyRow(org.api_key);
  expect(await authenticateApiKey(db, org.api_key)).toEqual({ organizationId: row.organizationId, apiKeyId: row.id });
  expect(await authenticateApiKey(db, `${org.api_key.slice(0, -1)}${org.api_key.endsWith('A') ? 'B' : 'A'}`)).toBeNull();
  await db.apiKey.update({ where: { id: row.id }, data: { expiresAt: new Date(Date.now() - 1) } });
  expect(await authenticateApiKey(db, org.api_key)).toBeNull();
  await db.apiKey.update({ where: { id: row.id }, data: { expiresAt: null, revokedAt: new Date() } });
  expect(await authenticateApiKey(db, org.api_key)).toBeNull();
});

test('closing the client right after a request waits for its last_used write, within the bound, every time', async () => {
  const org = await newOrg(db);
  const row = await keyRow(org.api_key);
  const logged = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  try {
    for (let i = 0; i < 10; i += 1) {
      await db.apiKey.update({ where: { id: row.id }, data: { lastUsedAt: null } });
      const requestDb = createDb(undefined, 2);
      expect(await authenticateApiKey(requestDb, org.api_key)).not.toBeNull();
      await new Promise((resolve) => setImmediate(resolve)); // the window the old teardown hit
      await closeDb(requestDb);
      // Closed cleanly (a bound that passed is logged), and the write had landed before.
      expect(logged).not.toHaveBeenCalled();
      expect((await keyRow(org.api_key)).lastUsedAt).not.toBeNull();
    }
  } finally {
    logged.mockRestore();
  }
});
