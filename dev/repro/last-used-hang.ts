/**
 * Reproduces issue 6's teardown hang and shows the fix: fire a key's last_used
 * update without awaiting it, then disconnect, `TRIES` times; a try that has not
 * closed within `HANG_MS` counts as hung.
 *
 *   tsx dev/repro/last-used-hang.ts before   # the old middleware's write: Prisma updateMany + $disconnect()
 *   tsx dev/repro/last-used-hang.ts after    # domain/api-keys/authenticate.ts + lib/db.ts closeDb()
 *
 * Prints `last-used-hang mode=<mode> tries=N hung=M` and the sessions left
 * "idle in transaction" in this database.
 */
import { authenticateApiKey } from '../../domain/api-keys/authenticate';
import { createOrganization } from '../../domain/organizations/service';
import { closeDb, createDb, type Db } from '../../lib/db';
import { withDeadline } from '../../lib/deadline';

const TRIES = Number(process.env.TRIES ?? 40);
const HANG_MS = Number(process.env.HANG_MS ?? 5_000);
const mode = process.argv[2] === 'after' ? 'after' : 'before';

async function oneTry(secret: string, keyId: string): Promise<boolean> {
  // A fresh pool per try, as each test file's harness has, warmed like a request's key lookup.
  const db = createDb(undefined, 5);
  await db.apiKey.update({ where: { id: keyId }, data: { lastUsedAt: null } }); // so a refresh is due
  let close: () => Promise<unknown>;
  if (mode === 'before') {
    // What api/auth/api-key-auth.ts did: fire and forget; then the teardown disconnects.
    db.apiKey
      .updateMany({ where: { id: keyId, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: new Date() } }] }, data: { lastUsedAt: new Date() } })
      .catch(() => undefined);
    close = () => db.$disconnect();
  } else {
    if (!(await authenticateApiKey(db, secret))) throw new Error('key refused');
    close = () => closeDb(db);
  }
  // The response goes out, the test ends, afterAll closes: a tick later the write is mid-way.
  await new Promise((resolve) => setImmediate(resolve));
  return withDeadline(close(), HANG_MS, 'close').then(
    () => false,
    () => true,
  );
}

async function main() {
  const admin: Db = createDb(undefined, 2);
  const org = await createOrganization(admin, { name: `last-used-hang ${process.pid}-${Date.now()}`, withAdAccount: false });
  const key = await admin.apiKey.findFirstOrThrow({ where: { organization: { publicId: org.org_public_id } } });
  let hung = 0;
  for (let i = 0; i < TRIES; i++) if (await oneTry(org.api_key, key.id)) hung += 1;
  const idle = await admin.$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state = 'idle in transaction'`;
  console.log(`idle in transaction sessions now: ${idle[0].n}`);
  console.log(`last-used-hang mode=${mode} tries=${TRIES} hung=${hung}`);
  await closeDb(admin);
  process.exit(0); // hung pools would keep the process alive
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
