import { electronicFormatIBAN, isValidIBAN } from 'ibantools';

/**
 * Personal data in conversation text (docs/api-behaviour.md, "Personal data
 * and retention"): the one place that finds it. Two policies over the same
 * detectors:
 *
 * - `maskPii`: what leaves us (the native bid request's messages, and every
 *   text the auction passes on) keeps its words and has each personal item
 *   replaced by a typed placeholder (`[email]`, `[phone]`, ...), so a DSP's
 *   contextual model still reads the sentence. Precise: dates, prices, years,
 *   versions, model and order numbers stay.
 * - `scrubPii`: the bid-request signals (domain/understanding/signals) cut
 *   personal data out and err on the side of cutting: also URLs, any run of 7
 *   or more digits however spaced, IBAN- and street-like text that does not
 *   validate, and a placeholder left by the mask.
 */
export const PII_TYPES = ['email', 'phone', 'card', 'iban', 'national_id', 'address', 'name', 'number'] as const;
export type PiiType = (typeof PII_TYPES)[number];

/** What stands where an item was masked: its type in brackets. `number`: a long number of no known kind (an account, a customer number). */
export const piiPlaceholder = (type: PiiType) => `[${type}]`;
const PLACEHOLDER = /\[(?:email|phone|card|iban|national_id|address|name|number)\]/g;

export interface PiiSpan {
  start: number;
  end: number;
  type: PiiType | 'url';
}

type Policy = 'mask' | 'cut';

/** The personal items of `text` (sorted, not overlapping), as the mask finds them. */
export function findPii(text: string): PiiSpan[] {
  return findPiiInMessages([text])[0];
}

/**
 * The personal items of each text of a conversation. A name the user gave
 * ("my name is Priya") is masked wherever it comes again in the conversation
 * ("Hi Priya!" in the answer).
 */
export function findPiiInMessages(texts: readonly string[]): PiiSpan[][] {
  const found = texts.map((text) => detect(text, 'mask'));
  const named = new Set<string>();
  for (let i = 0; i < texts.length; i += 1)
    for (const s of found[i]) {
      if (s.type !== 'name') continue;
      const name = texts[i].slice(s.start, s.end);
      named.add(name);
      for (const w of name.split(/\s+/)) if (w.length >= 2) named.add(w);
    }
  if (named.size === 0) return found;
  // The whole name before its words: "Tom Hardwick" again is one item.
  const alternatives = [...named].sort((a, b) => b.length - a.length).map(escapeRegExp);
  const again = new RegExp(`(?<![\\p{L}\\p{N}])(?:${alternatives.join('|')})(?![\\p{L}\\p{N}])`, 'gu');
  return found.map((spans, i) => {
    const more = [...texts[i].matchAll(again)].filter((m) => !spans.some((s) => m.index < s.end && s.start < m.index + m[0].length));
    if (more.length === 0) return spans;
    return [...spans, ...more.map((m) => ({ start: m.index, end: m.index + m[0].length, type: 'name' as const }))].sort((a, b) => a.start - b.start);
  });
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `text` with each span replaced by `replacement(span)`. */
function render(text: string, spans: readonly PiiSpan[], replacement: (span: PiiSpan) => string): string {
  let out = '';
  let from = 0;
  for (const s of spans) {
    out += text.slice(from, s.start) + replacement(s);
    from = s.end;
  }
  return out + text.slice(from);
}

/** `text` with each personal item replaced by its placeholder; the very string when there is none. */
export function maskPii(text: string): string {
  const [spans] = findPiiInMessages([text]);
  return spans.length ? render(text, spans, (s) => piiPlaceholder(s.type as PiiType)) : text;
}

/** Messages with their contents masked: the very array when nothing in it is personal, else a copy (unchanged messages shared). */
export function maskMessages<M extends { content: string }>(messages: readonly M[]): readonly M[] {
  const found = findPiiInMessages(messages.map((m) => m.content));
  let out: M[] | null = null;
  for (let i = 0; i < messages.length; i += 1) {
    if (found[i].length === 0) continue;
    out ??= messages.slice();
    out[i] = { ...messages[i], content: render(messages[i].content, found[i], (s) => piiPlaceholder(s.type as PiiType)) };
  }
  return out ?? messages;
}

/** What stands where personal data was cut out (a private-use character: no word, no letter): the signals drop the clause around it. */
export const PII_MARK = '\uE000';

/** `text` with personal data cut out, each item replaced by ` mark `. */
export function scrubPii(text: string, mark = PII_MARK): string {
  const spans = detect(text, 'cut');
  if (spans.length === 0) return text;
  const cut = ` ${mark} `;
  return render(text, spans, () => cut);
}

// ---------------------------------------------------------------------------
// Detectors, in order of precedence: a later one never takes text an earlier one took.
// ---------------------------------------------------------------------------

function detect(text: string, policy: Policy): PiiSpan[] {
  const spans: PiiSpan[] = [];
  const take = (start: number, end: number, type: PiiSpan['type']) => {
    for (const s of spans) if (start < s.end && s.start < end) return false;
    spans.push({ start, end, type });
    return true;
  };
  if (text.includes('@')) emails(text, take);
  // The mask leaves URLs as written (an e-mail in one is masked above), and nothing inside one is taken as a number.
  if (text.includes('http') || text.includes('www.')) for (const m of text.matchAll(URL)) take(m.index, m.index + m[0].length, 'url');
  if (policy === 'cut') for (const m of text.matchAll(PLACEHOLDER)) take(m.index, m.index + m[0].length, 'number');
  names(text, policy, take);
  if (!HAS_DIGIT.test(text)) return finish(spans, policy);
  ibans(text, policy, take);
  for (const re of LETTERED_IDS) for (const m of text.matchAll(re)) take(m.index, m.index + m[0].length, 'national_id');
  addresses(text, policy, take);
  for (const m of text.matchAll(DIGIT_RUN)) {
    const type = classifyDigits(text, m.index, m[0], policy);
    // A bracket that opens the sentence's aside, not an area code, stays outside the item.
    const skip = m[0].startsWith('(') && !AREA_CODE.test(m[0]) ? 1 : 0;
    if (type) take(m.index + skip, m.index + m[0].length, type);
  }
  return finish(spans, policy);
}

type Take = (start: number, end: number, type: PiiSpan['type']) => boolean;

function finish(spans: PiiSpan[], policy: Policy): PiiSpan[] {
  const kept = policy === 'mask' ? spans.filter((s) => s.type !== 'url') : spans;
  return kept.sort((a, b) => a.start - b.start);
}

const HAS_DIGIT = /\d/;
const URL = /\b(?:https?:\/\/|www\.)[^\s<>"]{1,2000}/giu;

const LOCAL_CHAR = /[\p{L}\p{N}._%+-]/u;
const DOMAIN_CHAR = /[\p{L}\p{N}.-]/u;

/**
 * E-mail addresses, by a scan from each "@" (a local part of at most 64
 * characters before it, a dotted domain of at most 253 after it): linear in the
 * text, where a regular expression re-scans a long run of address characters
 * from every place it starts.
 */
function emails(text: string, take: Take): void {
  let from = 0;
  for (let at = text.indexOf('@'); at >= 0; at = text.indexOf('@', at + 1)) {
    let start = at;
    while (start > from && at - start < 64 && LOCAL_CHAR.test(text[start - 1])) start -= 1;
    let end = at + 1;
    while (end < text.length && end - at <= 253 && DOMAIN_CHAR.test(text[end])) end += 1;
    while (end > at + 1 && (text[end - 1] === '.' || text[end - 1] === '-')) end -= 1;
    const domain = text.slice(at + 1, end);
    if (start === at || !/^[^.]+(\.[^.]+)+$/u.test(domain)) continue;
    take(start, end, 'email');
    from = end;
    at = end - 1;
  }
}

/** A name the user gives as theirs ("my name is ...", in the set's languages): the one or two words after it.
 * The cue's start is checked by lookbehind, not `\b`: `\b` sees only ASCII letters ("меня зовут"). */
const NAME_INTRO =
  /(?<![\p{L}\p{N}_])(?:my name is|(?:my|the) name['’]s|je m['’]appelle|mon nom est|ich heiße|ich heisse|mein name ist|me llamo|mi nombre es|mi chiamo|il mio nome è|meu nome é|me chamo|mijn naam is|ik heet|nazywam się|mam na imię|jag heter|mitt namn är|benim adım|adım|меня зовут|моё имя|мое имя|мене звати|моє ім['’]я|με λένε|λέγομαι|το όνομά μου είναι|i am called|call me)\s+/giu;
const NAME_WORD = /^[\p{L}'-]+/u;
const CAPITALISED_WORD = /^\s+(\p{Lu}[\p{L}'-]*)/u;
/** Words after "call me" that are not a name (the mask needs a capitalised one that is not these). */
const NOT_A_NAME = new Set(['back', 'later', 'tomorrow', 'now', 'when', 'if', 'at', 'on', 'please', 'maybe', 'crazy', 'anytime', 'sometime']);

function names(text: string, policy: Policy, take: Take): void {
  if (!NAME_CUE.test(text)) return;
  for (const m of text.matchAll(NAME_INTRO)) {
    const at = m.index + m[0].length;
    const first = NAME_WORD.exec(text.slice(at, at + 60))?.[0];
    if (!first) continue;
    const weak = /^(?:call me|i am called)/i.test(m[0]);
    const capitalised = first[0] !== first[0].toLowerCase();
    if (policy === 'mask' && weak && (!capitalised || NOT_A_NAME.has(first.toLowerCase()))) continue;
    let end = at + first.length;
    const second = CAPITALISED_WORD.exec(text.slice(end, end + 60));
    if (second) end += second[0].length;
    take(policy === 'cut' ? m.index : at, end, 'name');
  }
}
const NAME_CUE =
  /name|nom|appelle|heiß|heiss|llamo|nombre|chiamo|nome|chamo|naam|heet|nazywam|imię|heter|namn|adım|called|call me|зовут|имя|звати|ім['’]я|λένε|λέγομαι|όνομ/iu;

/**
 * IBANs: two letters, two check digits, then 11 to 30 letters and digits,
 * possibly in groups of four; masked when ibantools validates the country's
 * length and the check digits (the longest valid prefix: the text may run on).
 */
const IBAN = /\b[A-Z]{2}\d{2}(?:[ -]?[A-Z0-9]){11,32}/g;
const IBAN_LOOSE = /\b[A-Z]{2}\d{2}(?:[ -]?[A-Z0-9]{2,4}){3,8}\b/giu;

function ibans(text: string, policy: Policy, take: Take): void {
  for (const m of text.matchAll(IBAN)) {
    const end = validIbanEnd(m[0]);
    if (end > 0) take(m.index, m.index + end, 'iban');
  }
  if (policy === 'cut') for (const m of text.matchAll(IBAN_LOOSE)) if (countDigits(m[0].slice(4)) >= 4) take(m.index, m.index + m[0].length, 'iban');
}

/** The length of the longest prefix of `candidate` that is a valid IBAN (0: none). */
function validIbanEnd(candidate: string): number {
  for (let end = candidate.length; end >= 15; end -= 1) {
    const last = candidate[end - 1];
    if (last === ' ' || last === '-') continue;
    const compact = electronicFormatIBAN(candidate.slice(0, end));
    if (compact && compact.length >= 15 && isValidIBAN(compact)) return end;
  }
  return 0;
}

/** National ids written with letters (the digit-only ones are recognised among digit runs). */
const LETTERED_IDS = [
  // UK National Insurance number: AB 12 34 56 C.
  /\b[A-Z]{2} ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b/g,
  // Spain: DNI 12345678Z, NIE X1234567L.
  /\b\d{8}-?[A-Z]\b/g,
  /\b[XYZ]-?\d{7}-?[A-Z]\b/g,
  // Italy: codice fiscale.
  /\b[A-Z]{6}\d{2}[A-EHLMPRST]\d{2}[A-Z]\d{3}[A-Z]\b/gi,
];

/**
 * Street addresses: a house number and a street. English order ("221B Baker
 * Street", "15 Maple Avenue"), French ("12 rue de Rivoli"), the number after
 * ("Calle de Alcalá 45", "Via Roma 10", "ul. Marszałkowska 10", "Bağdat Caddesi No: 123"),
 * and compounds ("Hauptstraße 12", "Kerkstraat 12", "Storgatan 5"). Words that
 * also mean something else (way, place, close, court, ...; via, corso, plaza) count
 * for the mask only with a capitalised street name.
 */
const STREET_WORDS_EN =
  'street|st|avenue|ave|road|rd|boulevard|blvd|lane|ln|drive|dr|way|court|ct|place|pl|terrace|close|crescent|square|sq|parkway|highway|hwy';
const AMBIGUOUS_EN = new Set(['way', 'court', 'ct', 'place', 'pl', 'close', 'square', 'sq', 'drive', 'dr', 'terrace', 'crescent', 'st']);
const STREET_AFTER_NUMBER = new RegExp(`(?<![\\p{L}\\p{N}])\\d{1,5}[a-zA-Z]?,?\\s+((?:[\\p{L}'.-]+\\s+){0,4})(${STREET_WORDS_EN})\\b\\.?`, 'giu');
const FRENCH_STREET =
  /(?<![\p{L}\p{N}])\d{1,4}(?:\s?(?:bis|ter))?,?\s+(rue|avenue|av\.|boulevard|bd|chemin|impasse|allée|quai|place|cours)\s+(?:(?:de la|de l'|du|des|de|d')\s*)?\p{L}[\p{L}'-]*(?:\s+\p{Lu}[\p{L}'-]*)*/gu;
const NUMBER_AFTER_STREET =
  /\b(rue|avenue|boulevard|calle|c\/|avenida|av\.|plaza|paseo|via|viale|piazza|corso|rua|travessa|ulica|ul\.?|aleja|al\.)\s+((?:[\p{L}'.-]+\s+){0,4})\d{1,5}[a-z]?\b/giu;
const AMBIGUOUS_FRENCH = new Set(['place', 'cours', 'quai', 'avenue']);
/** Turkish: the street's name, then its kind, then "No:" and the number ("Bağdat Caddesi No: 123"). */
const TURKISH_STREET = /(?<![\p{L}\p{N}])\p{L}[\p{L}'-]*\s+(?:caddesi|cad\.|cd\.|sokak|sokağı|sk\.|bulvarı)\s*(?:no\.?\s*:?\s*)?\d{1,5}[a-z]?\b/giu;
const AMBIGUOUS_BEFORE = new Set(['via', 'corso', 'plaza', 'paseo', 'piazza']);
/** French streets are numbered before ("12 rue de Rivoli"): after, these words start no address the mask takes. */
const NUMBERED_BEFORE = new Set(['rue', 'avenue', 'boulevard']);

/** Whether "<street word> <name> <number>" names a street, for the mask: a name of at most three words, capitalised after an ambiguous word. */
function namedBefore(word: string, name: string): boolean {
  if (NUMBERED_BEFORE.has(word) || !name || name.split(/\s+/).length > 3) return false;
  return !AMBIGUOUS_BEFORE.has(word) || hasCapital(name);
}
const STREET_COMPOUND =
  /(?<![\p{L}\p{N}])[\p{L}-]+(?:straße|strasse|str\.|weg|gasse|allee|platz|laan|straat|plein|gracht|gata|gatan|vägen|väg)\s*\d{1,5}[a-z]?\b/giu;

const hasCapital = (s: string) => /\p{Lu}/u.test(s);

function addresses(text: string, policy: Policy, take: Take): void {
  if (!STREET_CUE.test(text)) return;
  for (const m of text.matchAll(FRENCH_STREET)) {
    if (policy === 'mask' && AMBIGUOUS_FRENCH.has(m[1].toLowerCase()) && !hasCapital(m[0])) continue;
    take(m.index, m.index + m[0].length, 'address');
  }
  for (const m of text.matchAll(STREET_AFTER_NUMBER)) {
    if (policy === 'mask' && !streetName(m[1].trim(), m[2])) continue;
    take(m.index, m.index + m[0].length, 'address');
  }
  for (const m of text.matchAll(NUMBER_AFTER_STREET)) {
    if (policy === 'mask' && !namedBefore(m[1].toLowerCase(), m[2].trim())) continue;
    take(m.index, m.index + m[0].length, 'address');
  }
  for (const re of [TURKISH_STREET, STREET_COMPOUND]) for (const m of text.matchAll(re)) take(m.index, m.index + m[0].length, 'address');
}

/**
 * Whether "<number> <name> <street word>" names a street, for the mask: a name
 * of one to four words; capitalised where the street word also means something
 * else ("Evergreen Terrace", not "2 tickets for the place"); in lower case only
 * before an unambiguous street word, one or two words that are not street words
 * themselves ("10 baker street", not "a 4 lane road").
 */
function streetName(name: string, word: string): boolean {
  if (!name) return false;
  if (hasCapital(name)) return !AMBIGUOUS_EN.has(word.toLowerCase()) || hasCapital(word);
  if (AMBIGUOUS_EN.has(word.toLowerCase())) return false;
  const words = name.split(/\s+/);
  return words.length <= 2 && !words.some((w) => STREET_WORD.test(w));
}
const STREET_WORD = new RegExp(`^(?:${STREET_WORDS_EN})$`, 'i');

const STREET_CUE =
  /street|\bst\b|avenue|ave|road|\brd\b|boulevard|blvd|lane|\bln\b|drive|\bdr\b|way|court|\bct\b|place|\bpl\b|terrace|close|crescent|square|\bsq\b|parkway|highway|hwy|rue|\bav\.|\bbd\b|chemin|impasse|allée|quai|cours|calle|c\/|avenida|plaza|paseo|\bvia\b|viale|piazza|corso|\brua\b|travessa|ulica|\bul\.|aleja|\bal\.|gatan|vägen|sokak|sokağı|caddesi|cad\.|cd\.|straße|strasse|str\.|weg|gasse|allee|platz|laan|straat|plein|gracht|gata|väg/iu;

// ---------------------------------------------------------------------------
// Runs of digits: phone, card, national id, a long number; or nothing personal.
// ---------------------------------------------------------------------------

/** Digits with the separators phone, card and id numbers are written with (not across lines). */
const DIGIT_RUN = /(?<![\p{L}\p{N}])(?:\+|\b00)?\(?\d[\d \t\u00a0().\-/]{5,40}\d(?![\p{L}\p{N}])/gu;
const MIN_PERSONAL_DIGITS = 7;
const AREA_CODE = /^\(\d{1,5}\)/;

/** Words before a number that say it is a phone number (each word starting a word: "during" is no "ring"). */
const PHONE_CONTEXT =
  /(?<!\p{L})(?:phone|tel|tél|call|mobile|cell|whats ?app|text me|sms|fax|reach me|contact|telefon|handy|nummer|portable|appel|móvil|movil|celular|llám|llam|cellulare|chiam|ligue|zap|mobiel|bel me|komórk|zadzwoń|numer|ring|mobil|numara|телефон|номер|number|numéro|número|numero)[^\d\n]{0,20}$/iu;
/** Words before a number that say it is an id. */
const ID_CONTEXT =
  /(?<!\p{L})(?:ssn|social security|national insurance|insurance number|id number|id no|identity|identification|personal number|personnummer|dni|nie|nif|cpf|pesel|bsn|burgerservicenummer|kimlik|steuer-?id|steueridentifikationsnummer|steuernummer|ausweis|codice fiscale|sécurité sociale|sécu|insee|passport|pasaporte|passeport|reisepass|paszport|pasaport|dowód|tax id|tax number|nino)[^\d\n]{0,25}$/iu;
/** Words before a number that say it names a thing, not a person: an order, a product, a book, a flight, a parcel, a build. */
const THING_CONTEXT =
  /(?:(?<!\p{L})(?:order|invoice|tracking|model|part|sku|isbn|issn|ref|reference|flight|booking|serial|article|item|ticket|build|version|firmware|bestell|rechnung|artikel|commande|facture|pedido|factura|ordine|fattura|encomenda|bestelling|factuur|zamówieni|faktur|beställning|sipariş|fatura)|#)[^\d\n]{0,12}$/iu;

/** What a run of digits is, or null when it is nothing personal. */
function classifyDigits(text: string, at: number, run: string, policy: Policy): PiiType | null {
  const digits = run.replace(/\D/g, '');
  const n = digits.length;
  if (n < MIN_PERSONAL_DIGITS) return null;
  if (policy === 'cut') return n >= 13 && n <= 19 && luhnValid(digits) ? 'card' : 'number';
  const before = text.slice(Math.max(0, at - 40), at);
  // A country code, or an area code in brackets ("(212) 555-0187"; not "(2019-2023").
  const prefixed = run.startsWith('+') || run.startsWith('00') || AREA_CODE.test(run);
  const groups = run.split(/[^\d]+/).filter(Boolean);
  // An opening bracket of the sentence's own ("(2019-2023)", "(15.03.2024)") is not the number's.
  const bare = prefixed ? run : run.replace(/^\(/, '');
  const spaced = /^[\d \t\u00a0]+$/.test(bare);
  const compact = bare.replace(/[ \t\u00a0]+/g, ' ').trim();
  if (!prefixed && (DATE.test(compact) || ISO_DATE.test(compact) || YEAR_RANGE.test(compact))) return null;
  if (nationalIdShape(bare) || (ID_CONTEXT.test(before) && n <= 15)) return 'national_id';
  // A country code or a trunk prefix in brackets: a phone number, whatever its digits add up to.
  if (prefixed && n <= 15) return 'phone';
  if (ordinaryNumber(compact, groups) || THING_CONTEXT.test(before)) return null;
  if (n >= 13 && n <= 19 && (luhnValid(digits) || /^\d{4}([ -])\d{4}\1\d{4}\1\d{4}$/.test(bare))) return 'card';
  if (n > 15) return 'number';
  if (PHONE_CONTEXT.test(before) || bare.startsWith('0')) return 'phone';
  // Spaced groups without a prefix: only a phone number's layout (sizes, scores, lists of years are not one).
  if (spaced && groups.length > 1) return PHONE_LAYOUTS.has(groups.map((g) => g.length).join('-')) ? 'phone' : null;
  return 'phone';
}

/** Group lengths of phone numbers written without a prefix (pairs alone, "38 39 40 41", are sizes or scores more often than a number). */
const PHONE_LAYOUTS = new Set(['3-3-4', '3-4', '3-3-3', '2-4-4', '3-4-4', '4-3-4', '3-2-2', '2-3-4', '3-2-2-2', '2-3-2-2', '3-3-2-2']);

/** Numbers that are not about a person (dates are told apart before): lists of years, amounts with thousands, IP addresses and versions, ISBNs. */
function ordinaryNumber(compact: string, groups: string[]): boolean {
  if (groups.every((g) => YEAR.test(g))) return true;
  // Versions and IP addresses; a North American number written with dots (310.555.0176) is none.
  if (/^\d+(?:\.\d+){2,3}$/.test(compact) && groups.map((g) => g.length).join('-') !== '3-3-4') return true;
  if (/^97[89]-/.test(compact)) return true;
  // Thousands: "1 250 000", "1.250.000", "125 000 000": a first group under three digits, or a later one of three zeros.
  if (THOUSANDS.test(compact) && (groups[0].length < 3 || groups.slice(1).some((g) => g === '000'))) return true;
  return false;
}
const DATE = /^\d{1,2}[./-]\d{1,2}[./-](?:\d{2}|\d{4})$/;
const ISO_DATE = /^(?:19|20)\d{2}[./-]\d{1,2}[./-]\d{1,2}$/;
const YEAR_RANGE = /^(?:1[89]|20)\d{2} ?[-/] ?(?:(?:1[89]|20)\d{2}|\d{2})$/;
const YEAR = /^(?:1[89]|20)\d{2}$/;
const THOUSANDS = /^\d{1,3}(?:([ .])\d{3})(?:\1\d{3})*$/;

/** National ids written with digits alone, recognisable by their layout. */
function nationalIdShape(run: string): boolean {
  return (
    /^\d{3}[- ]\d{2}[- ]\d{4}$/.test(run) || // US SSN
    /^\d{3}\.\d{3}\.\d{3}-\d{2}$/.test(run) || // Brazil CPF
    /^(?:\d{2})?\d{6}[-+]\d{4}$/.test(run) || // Sweden personnummer
    /^[12] \d{2} \d{2} (?:\d{2}|2[AB]) \d{3} \d{3}(?: \d{2})?$/.test(run) // France NIR
  );
}

function countDigits(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i += 1) if (s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57) n += 1;
  return n;
}

/** Whether a card number passes the Luhn check. */
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
