import { getAlpha2Codes } from 'i18n-iso-countries';

/**
 * ISO 3166-1 alpha-2: the 249 officially assigned codes (ISO 3166 Maintenance Agency), from
 * i18n-iso-countries' table. Exceptionally reserved (UK, EU, UN…), transitionally reserved and
 * user-assigned codes (AA, QM–QZ, XA–XZ, ZZ) are absent: the table holds none but XK (Kosovo,
 * user-assigned, provisional), left out here.
 */
const NOT_ISO_ASSIGNED = new Set(['XK']);
export const COUNTRY_CODES: ReadonlySet<string> = frozenSet(
  Object.keys(getAlpha2Codes())
    .filter((code) => !NOT_ISO_ASSIGNED.has(code))
    .sort(),
);

/** The assigned codes in either letter case, as a JSON Schema pattern (the OpenAPI document's). */
export const COUNTRY_CODE_PATTERN = `^(?:${[...COUNTRY_CODES].map((code) => [...code].map((c) => `[${c}${c.toLowerCase()}]`).join('')).join('|')})$`;

/**
 * Uppercase code when `input` is an assigned alpha-2 code in any letter case,
 * else null. Nothing is trimmed: ' us' is not a code.
 */
export function normalizeCountryCode(input: unknown): string | null {
  if (typeof input !== 'string' || !/^[a-z]{2}$/i.test(input)) return null;
  const code = input.toUpperCase();
  return COUNTRY_CODES.has(code) ? code : null;
}

/** Object.freeze alone leaves a Set's contents mutable; make the mutators throw too. */
function frozenSet(values: string[]): ReadonlySet<string> {
  const refuse = () => {
    throw new TypeError('COUNTRY_CODES is read-only');
  };
  return Object.freeze(Object.assign(new Set(values), { add: refuse, delete: refuse, clear: refuse }));
}
