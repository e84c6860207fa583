import type { ApiKeyAuth } from '../domain/api-keys/authenticate';
import { cachedApiKeyAuth } from '../api/auth/cached-api-key-auth';
import type { Db } from '../lib/db';

/** api/auth/cached-api-key-auth.ts with a fake clock and fake lookups (no database). */
const SECRET = 'ak_test_cached';
const req = { headers: { authorization: `Bearer ${SECRET}` } };
const AUTH: ApiKeyAuth = { organizationId: 'org-1', apiKeyId: 'key-1' };

function setup() {
  let clock = 1_000_000;
  const renewals: Array<(auth: ApiKeyAuth | null | Error) => void> = [];
  let requestLookups = 0;
  const cache = cachedApiKeyAuth(null as unknown as Db, {
    ttlMs: 5_000,
    now: () => clock,
    authenticateRequest: async () => {
      requestLookups += 1;
      return AUTH;
    },
    // Each renewal waits until the test settles it.
    authenticateSecret: () =>
      new Promise((resolve, reject) => {
        renewals.push((outcome) => (outcome instanceof Error ? reject(outcome) : resolve(outcome)));
      }),
  });
  const remember = () =>
    new Promise<void>((resolve, reject) => {
      const res = { locals: {} as Record<string, unknown> };
      void (cache.middleware as unknown as (q: unknown, r: unknown, n: (e?: Error) => void) => Promise<void>)(req, res, (err) =>
        err ? reject(err) : resolve(),
      );
    });
  const flush = () => new Promise((r) => setImmediate(r));
  return {
    cache,
    remember,
    renewals,
    flush,
    lookups: () => requestLookups,
    advance: (ms: number) => {
      clock += ms;
    },
  };
}

describe('cachedApiKeyAuth', () => {
  it('renews a remembered key once, in the background, while it keeps serving', async () => {
    const t = setup();
    expect(t.cache.lookup(req)).toBeUndefined();
    await t.remember();
    expect(t.lookups()).toBe(1);
    t.advance(2_000);
    expect(t.cache.lookup(req)).toEqual(AUTH);
    expect(t.renewals).toHaveLength(0);
    t.advance(1_000); // past half the lifetime: the next request starts one renewal, the others wait for it
    for (let i = 0; i < 100; i++) expect(t.cache.lookup(req)).toEqual(AUTH);
    expect(t.renewals).toHaveLength(1);
    t.renewals[0](AUTH);
    await t.flush();
    t.advance(4_000); // 7 s after the first check, 4 s after the renewal: still trusted
    expect(t.cache.lookup(req)).toEqual(AUTH);
    expect(t.lookups()).toBe(1);
  });

  it('drops a key the renewal finds no longer valid', async () => {
    const t = setup();
    await t.remember();
    t.advance(3_000);
    expect(t.cache.lookup(req)).toEqual(AUTH);
    t.renewals[0](null);
    await t.flush();
    expect(t.cache.lookup(req)).toBeUndefined();
  });

  it('never trusts a check older than its lifetime, even when the renewal failed', async () => {
    const t = setup();
    await t.remember();
    t.advance(3_000);
    t.cache.lookup(req);
    t.renewals[0](new Error('database down'));
    await t.flush();
    t.advance(1_000);
    expect(t.cache.lookup(req)).toEqual(AUTH); // 4 s old: trusted, and a new renewal is tried
    expect(t.renewals).toHaveLength(2);
    t.advance(1_000);
    expect(t.cache.lookup(req)).toBeUndefined(); // 5 s old
  });

  it('remembers nothing for a request without a key', () => {
    const t = setup();
    expect(t.cache.lookup({ headers: {} })).toBeUndefined();
  });
});
