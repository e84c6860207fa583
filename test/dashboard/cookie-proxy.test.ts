/**
 * Behind a TLS-terminating proxy the api sees plain HTTP: the session cookie is
 * Secure when a trusted proxy says `X-Forwarded-Proto: https`, and only then.
 */
import { config } from '../../lib/config';
import { createLoginLink, memberForLoginLink } from '../../domain/dashboard/sessions';
import { organizationIdOf } from '../support/fixtures';
import { newOrg, useHarness } from '../support/harness';

const h = useHarness();

async function signIn(headers: Record<string, string>): Promise<string> {
  const orgId = await organizationIdOf(h.db, await newOrg(h.db));
  const { token } = await createLoginLink(h.db, { memberId: await memberForLoginLink(h.db, orgId, 'owner') });
  const res = await fetch(`${h.url}/dashboard/login`, { method: 'POST', body: new URLSearchParams({ token }), headers, redirect: 'manual' });
  expect(res.status).toBe(303);
  return res.headers.get('set-cookie') ?? '';
}

test('Secure from a trusted proxy that terminated TLS; not from anyone else, whatever they say', async () => {
  const forwarded = { 'x-forwarded-proto': 'https' };
  expect(await signIn(forwarded)).not.toMatch(/;\s*Secure/i);
  config.trustedProxies.add('127.0.0.1');
  try {
    expect(await signIn(forwarded)).toMatch(/;\s*Secure/i);
    expect(await signIn({ 'x-forwarded-proto': 'http' })).not.toMatch(/;\s*Secure/i);
    expect(await signIn({})).not.toMatch(/;\s*Secure/i);
  } finally {
    config.trustedProxies.delete('127.0.0.1');
  }
});
