import { COUNTRY_CODES, normalizeCountryCode } from '../domain/countries';
import { ALPHA3 } from '../domain/countries-iso3';

describe('COUNTRY_CODES', () => {
  test('holds the 249 assigned ISO 3166-1 alpha-2 codes, all two uppercase letters', () => {
    expect(COUNTRY_CODES.size).toBe(249);
    for (const code of COUNTRY_CODES) expect(code).toMatch(/^[A-Z]{2}$/);
  });

  test('includes the recently assigned and the less obvious codes', () => {
    // SS (2011), BQ/CW/SX (2010), plus territories without a population
    for (const code of ['SS', 'BQ', 'CW', 'SX', 'AQ', 'BV', 'HM', 'UM', 'GB', 'US', 'AX', 'EH', 'PS', 'TW']) {
      expect(COUNTRY_CODES.has(code)).toBe(true);
    }
  });

  test('is read-only at runtime', () => {
    const mutable = COUNTRY_CODES as Set<string>;
    expect(() => mutable.add('XK')).toThrow(TypeError);
    expect(() => mutable.delete('US')).toThrow(TypeError);
    expect(() => mutable.clear()).toThrow(TypeError);
    expect(Object.isFrozen(COUNTRY_CODES)).toBe(true);
    expect(COUNTRY_CODES.has('XK')).toBe(false);
    expect(COUNTRY_CODES.has('US')).toBe(true);
    expect(COUNTRY_CODES.size).toBe(249);
  });
});

describe('normalizeCountryCode', () => {
  test.each([
    ['US', 'US'],
    ['us', 'US'],
    ['uS', 'US'],
    ['de', 'DE'],
    ['zw', 'ZW'],
    ['ad', 'AD'],
  ])('%p → %p', (input, expected) => {
    expect(normalizeCountryCode(input)).toBe(expected);
  });

  test.each([
    ['UK', 'exceptionally reserved'],
    ['EU', 'exceptionally reserved'],
    ['UN', 'exceptionally reserved'],
    ['XK', 'user-assigned (Kosovo)'],
    ['AA', 'user-assigned'],
    ['QM', 'user-assigned'],
    ['XA', 'user-assigned'],
    ['ZZ', 'user-assigned'],
    ['AN', 'transitionally reserved (Netherlands Antilles)'],
    ['YU', 'transitionally reserved (Yugoslavia)'],
    ['CS', 'transitionally reserved'],
    ['SU', 'exceptionally reserved (USSR)'],
    ['AC', 'exceptionally reserved (Ascension)'],
    ['JA', 'never assigned'],
  ])('%p (%s) → null', (input) => {
    expect(normalizeCountryCode(input)).toBeNull();
  });

  test.each([' us', 'us ', 'U S', 'USA', 'U', '', '840', 'u\u0073\u0301', 'ＵＳ'])('malformed %p → null', (input) => {
    expect(normalizeCountryCode(input)).toBeNull();
  });

  test.each([null, undefined, 42, ['US'], { code: 'US' }, true])('non-string %p → null', (input) => {
    expect(normalizeCountryCode(input)).toBeNull();
  });
});

describe('ALPHA3 (OpenRTB device.geo.country)', () => {
  test('maps every assigned code, and no other, to its alpha-3 code', () => {
    expect([...ALPHA3.keys()]).toEqual([...COUNTRY_CODES]);
    for (const alpha3 of ALPHA3.values()) expect(alpha3).toMatch(/^[A-Z]{3}$/);
    expect(new Set(ALPHA3.values()).size).toBe(249);
  });

  test.each([
    ['US', 'USA'],
    ['DE', 'DEU'],
    ['GB', 'GBR'],
    ['SS', 'SSD'],
    ['BQ', 'BES'],
    ['CW', 'CUW'],
    ['AX', 'ALA'],
    ['PS', 'PSE'],
    ['TW', 'TWN'],
    ['KM', 'COM'],
  ])('%s -> %s', (alpha2, alpha3) => {
    expect(ALPHA3.get(alpha2)).toBe(alpha3);
  });
});
