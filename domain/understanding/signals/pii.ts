/**
 * Personal data never reaches a bidder: every text a signal is made from goes
 * through scrubPii first, which cuts out what looks like an e-mail address, a
 * URL, a phone number, a card number, an IBAN, a national id or a street
 * address, and the name after "my name is". Cut, not masked: a signal keeps
 * only words that are not personal. Errs on the side of cutting: any run of 7
 * or more digits (however spaced) goes, which also covers card numbers that
 * fail Luhn, account numbers and ids.
 */
const URL = /\b(?:https?:\/\/|www\.)\S{1,2000}/giu;
/** An IBAN: country, check digits, then 10-30 letters and digits, possibly in groups of four. */
const IBAN = /\b[A-Z]{2}\d{2}(?:[ -]?[A-Z0-9]{2,4}){3,8}\b/giu;
/** Digits with the separators phone, card and id numbers are written with; kept only when fewer than 7 digits. */
const DIGIT_RUN = /\+?\(?\d[\d\s().\-/]{5,40}\d/g;
const MIN_PERSONAL_DIGITS = 7;
/** A house number and a street word, in the set's languages ("12 Baker Street", "rue de la Paix 4", "Hauptstraße 5", "calle Mayor 3"). */
const STREET_AFTER =
  /\b\d{1,5}[a-z]?,?\s+(?:[\p{L}'.-]+\s+){0,4}(?:street|st|avenue|ave|road|rd|boulevard|blvd|lane|ln|drive|dr|way|court|ct|place|pl|terrace|close|crescent|square|sq)\b\.?/giu;
const STREET_BEFORE =
  /\b(?:rue|avenue|boulevard|bd|chemin|impasse|allée|calle|avenida|plaza|paseo|via|viale|piazza|corso|rua|travessa|ulica|ul|gatan|vägen|sokak|sokağı|caddesi|cad)\.?\s+(?:[\p{L}'.-]+\s+){0,4}\d{1,5}[a-z]?\b/giu;
const STREET_COMPOUND = /\b[\p{L}-]+(?:straße|strasse|str\.|weg|gasse|allee|platz|laan|straat|plein|gracht|gata|gatan|vägen|väg)\s*\d{1,5}[a-z]?\b/giu;
/** "my name is X Y": the one or two words after it. */
const NAME =
  /\b(?:my name is|i am called|call me|je m'appelle|mon nom est|ich heiße|ich heisse|mein name ist|me llamo|mi nombre es|mi chiamo|il mio nome è|meu nome é|me chamo|mijn naam is|ik heet|nazywam się|mam na imię|jag heter|mitt namn är|benim adım|adım)\s+[\p{L}'-]+(?:\s+\p{Lu}[\p{L}'-]*)?/giu;

/** What stands where personal data was cut out (a private-use character: no word, no letter): the signals drop the clause around it. */
export const PII_MARK = '\uE000';

export function scrubPii(text: string, mark = PII_MARK): string {
  const cut = ` ${mark} `;
  return withoutEmails(text, cut)
    .replace(URL, cut)
    .replace(NAME, cut)
    .replace(IBAN, (m) => (/\d.*\d.*\d.*\d/.test(m.slice(4)) ? cut : m))
    .replace(STREET_AFTER, cut)
    .replace(STREET_BEFORE, cut)
    .replace(STREET_COMPOUND, cut)
    .replace(DIGIT_RUN, (m) => (countDigits(m) >= MIN_PERSONAL_DIGITS ? cut : m));
}

const LOCAL_CHAR = /[\p{L}\p{N}._%+-]/u;
const DOMAIN_CHAR = /[\p{L}\p{N}.-]/u;

/**
 * E-mail addresses cut out by a scan from each "@" (a local part of at most 64
 * characters before it, a dotted domain of at most 253 after it): linear in the
 * text, where a regular expression re-scans a long run of address characters
 * from every place it starts.
 */
function withoutEmails(text: string, cut: string): string {
  if (!text.includes('@')) return text;
  let out = '';
  let from = 0;
  for (let at = text.indexOf('@'); at >= 0; at = text.indexOf('@', at + 1)) {
    let start = at;
    while (start > from && at - start < 64 && LOCAL_CHAR.test(text[start - 1])) start -= 1;
    let end = at + 1;
    while (end < text.length && end - at <= 253 && DOMAIN_CHAR.test(text[end])) end += 1;
    while (end > at + 1 && (text[end - 1] === '.' || text[end - 1] === '-')) end -= 1;
    const domain = text.slice(at + 1, end);
    if (start === at || !/^[^.]+(\.[^.]+)+$/u.test(domain)) continue;
    out += text.slice(from, start) + cut;
    from = end;
    at = end - 1;
  }
  return out + text.slice(from);
}

function countDigits(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i += 1) if (s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57) n += 1;
  return n;
}

/** Whether a card number passes the Luhn check (the bench's and tests' oracle for card numbers). */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i -= 1) {
    let d = digits.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return false;
    if (double) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
    double = !double;
  }
  return digits.length >= 12 && sum % 10 === 0;
}
