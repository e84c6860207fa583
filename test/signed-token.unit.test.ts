import { inspectBoundToken, parseSigningKeys, signBoundToken, signToken, verifyToken } from '../lib/signed-token';

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

  it('bound tokens: genuine for their own purpose only, with their body and expiry', () => {
    const token = signBoundToken('view', 'AbC_-.x', 60, oldKeys, 1_000_000);
    expect(token.startsWith('k1.1060.AbC_-.x.')).toBe(true);
    expect(inspectBoundToken(token, 'view', oldKeys, 1_000_000)).toEqual({ body: 'AbC_-.x', expired: false });
    expect(inspectBoundToken(token, 'view', oldKeys, 1_060_000)).toEqual({ body: 'AbC_-.x', expired: true });
    expect(inspectBoundToken(token, 'click', oldKeys, 1_000_000)).toBeNull();
    const sig = token.slice(token.lastIndexOf('.') + 1);
    for (const forged of [
      `k1.1061.AbC_-.x.${sig}`,
      `k1.1060.AbC_-.y.${sig}`,
      `k9.1060.AbC_-.x.${sig}`,
      `k1.1060.AbC_-.x.${sig.slice(0, -2)}AA`,
      `k1.1060.${sig}`,
    ])
      expect(inspectBoundToken(forged, 'view', oldKeys, 1_000_000)).toBeNull();
    // The other form's tokens are never bound tokens, nor the other way round.
    expect(inspectBoundToken(signToken({ a: 'x' }, 60, oldKeys, 1_000_000), 'view', oldKeys, 1_000_000)).toBeNull();
    expect(verifyToken(token, oldKeys, 1_000_000)).toBeNull();
    for (const bad of ['', 'k1', 'k1.1060', 'k1.1060.sig', '.1060.b.sig', 'k1.x60.b.sig', 'k1.1060.b.sig'.padEnd(8193, 'A'), 7, null])
      expect(inspectBoundToken(bad, 'view', oldKeys, 1_000_000)).toBeNull();
  });

  it('bound tokens of a rotated-out key stay genuine; new ones carry the current key', () => {
    const old = signBoundToken('click', 'b', 60, oldKeys, 1_000_000);
    expect(inspectBoundToken(old, 'click', rotated, 1_000_000)).toEqual({ body: 'b', expired: false });
    const current = signBoundToken('click', 'b', 60, rotated, 1_000_000);
    expect(current.startsWith('k2.')).toBe(true);
    expect(inspectBoundToken(current, 'click', oldKeys, 1_000_000)).toBeNull();
  });

  it('refuses malformed key configuration', () => {
    expect(() => parseSigningKeys('')).toThrow();
    expect(() => parseSigningKeys('nokey')).toThrow();
    expect(() => parseSigningKeys('k1:short')).toThrow();
  });
});
