import { parseSigningKeys, signToken, verifyToken } from '../lib/signed-token';

const oldKeys = parseSigningKeys('k1:first-secret-0123456789');
const rotated = parseSigningKeys('k2:second-secret-0123456789,k1:first-secret-0123456789');

describe('signed tokens', () => {
  it('round-trips the payload with its expiry', () => {
    const token = signToken({ a: 'x', n: 3 }, 60, oldKeys, 1_000_000);
    expect(verifyToken(token, oldKeys, 1_000_000)).toEqual({ a: 'x', n: 3, exp: 1_060 });
  });

  it('refuses expired, tampered, malformed and unknown-key tokens', () => {
    const token = signToken({ a: 'x' }, 60, oldKeys, 1_000_000);
    expect(verifyToken(token, oldKeys, 1_060_000)).toBeNull();
    const [kid, body, sig] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ a: 'y', exp: 9_999_999_999 })).toString('base64url');
    expect(verifyToken(`${kid}.${forged}.${sig}`, oldKeys, 1_000_000)).toBeNull();
    expect(verifyToken(`${kid}.${body}.${sig.slice(0, -2)}AA`, oldKeys, 1_000_000)).toBeNull();
    expect(verifyToken(`k9.${body}.${sig}`, oldKeys, 1_000_000)).toBeNull();
    for (const bad of ['', 'a.b', 'a.b.c.d', 42, null, `${kid}.!!.${sig}`]) expect(verifyToken(bad, oldKeys, 1_000_000)).toBeNull();
  });

  it('keeps tokens of a rotated-out key valid and signs new ones with the current key', () => {
    const old = signToken({ a: 'x' }, 60, oldKeys, 1_000_000);
    expect(verifyToken(old, rotated, 1_000_000)).toMatchObject({ a: 'x' });
    expect(signToken({ a: 'x' }, 60, rotated, 1_000_000).startsWith('k2.')).toBe(true);
    expect(verifyToken(signToken({ a: 'x' }, 60, rotated, 1_000_000), oldKeys, 1_000_000)).toBeNull();
  });

  it('refuses malformed key configuration', () => {
    expect(() => parseSigningKeys('')).toThrow();
    expect(() => parseSigningKeys('nokey')).toThrow();
    expect(() => parseSigningKeys('k1:short')).toThrow();
  });
});
