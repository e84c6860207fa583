/**
 * The bid-request signals (docs/signals.md) as pure functions of a
 * conversation: personal data never reaches a signal, the language and its
 * fallback, follow-ups resolved, no intent left empty, categories from the
 * curated terms in the conversation's language, bounds.
 */
import { ConversationReader } from '../../domain/understanding/conversation';
import { textEncoder } from '../../domain/understanding/encoder';
import { conversationSignals, loadLanguageDetector, MAX_KEYWORDS, MAX_QUERY_CHARS, scrubPii } from '../../domain/understanding/signals';
import { luhnValid, PII_MARK } from '../../domain/understanding/pii';

const encoder = textEncoder();
const reader = new ConversationReader(encoder);
beforeAll(() => loadLanguageDetector());

const chat = (...texts: string[]) => texts.map((content, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content }));
const signalsOf = (messages: { role: string; content: string }[], acceptLanguage?: string) =>
  conversationSignals({ messages, view: reader.read(messages), encoder, acceptLanguage });
const everything = (s: ReturnType<typeof signalsOf>) => [s.search, ...s.keywords].join(' | ');

describe('personal data', () => {
  const cases: [string, string][] = [
    ['e-mail', 'jane.doe84@gmail.com'],
    ['phone, international', '+1 415 555 0132'],
    ['phone, national with dashes', '070-123 45 67'],
    ['phone, brackets', '(212) 555-0187'],
    ['card (Luhn)', '4111 1111 1111 1111'],
    ['card, no spaces', '5500000000000004'],
    ['IBAN', 'GB29 NWBK 6016 1331 9268 19'],
    ['IBAN, compact', 'DE89370400440532013000'],
    ['national id', '123-45-6789'],
    ['street address', '221B Baker Street'],
    ['street address, German', 'Hauptstraße 12'],
    ['street address, French', 'rue de la Paix 4'],
    ['URL with a token', 'https://example.com/reset?token=abc123'],
  ];
  test.each(cases)('%s never appears in a signal', (_kind, personal) => {
    const s = signalsOf(
      chat(
        `I need new running shoes for a marathon, you can reach me at ${personal} if needed. Which ones are best?`,
        'Cushioned running shoes such as the Brooks Ghost suit long distances.',
      ),
    );
    expect(s.search).not.toBe('');
    const digits = personal.replace(/\D/g, '');
    expect(everything(s)).not.toContain(personal);
    if (digits.length >= 6) expect(everything(s).replace(/\D/g, '')).not.toContain(digits);
    expect(everything(s).toLowerCase()).not.toContain(personal.split(/[@\s]/)[0].toLowerCase());
  });

  test('the card numbers above are real test numbers (Luhn), and scrubbing cuts a run of 7 digits however spaced', () => {
    expect(luhnValid('4111111111111111')).toBe(true);
    expect(luhnValid('5500000000000004')).toBe(true);
    expect(luhnValid('4111111111111112')).toBe(false);
    expect(scrubPii('call 555 12 34 5 now')).toBe(`call  ${PII_MARK}  now`);
    // Numbers of few digits (sizes, prices, years) stay.
    expect(scrubPii('a 27 inch monitor for 300 dollars in 2024')).toBe('a 27 inch monitor for 300 dollars in 2024');
  });

  test('e-mail addresses are found from each "@": several in a text, subdomains, not a lone "@" or a handle without a domain', () => {
    const mark = ` ${PII_MARK} `;
    expect(scrubPii('mail a.b+ads@mail.example.co.uk or x_y@e-f.org.')).toBe(`mail ${mark} or ${mark}.`);
    expect(scrubPii('meet @ noon, ping @sam or sam@localhost')).toBe('meet @ noon, ping @sam or sam@localhost');
  });

  test('the sentence personal data was cut out of gives no keyword and no part of the query', () => {
    const s = signalsOf(chat('Which laptop is best for video editing? My phone number is 0171 2345678.', 'A MacBook Pro or a laptop with an RTX 4060.'));
    expect(s.keywords).not.toContain('phone number');
    expect(s.keywords.join(' ')).not.toMatch(/number/);
    expect(s.search).toBe('Which laptop is best for video editing?');
  });

  test('a name given as "my name is" is cut', () => {
    const s = signalsOf(
      chat('My name is Tom Hardwick and I want to open a savings account. Which bank pays the best interest?', 'Online banks usually pay more.'),
    );
    expect(everything(s).toLowerCase()).not.toContain('hardwick');
    expect(everything(s).toLowerCase()).not.toContain('tom');
  });
});

describe('language', () => {
  test.each([
    ['fr', 'Je cherche une batterie pour mon vélo électrique, combien de temps dure-t-elle ?'],
    ['de', 'Welche Laufschuhe sind gut für Anfänger mit leichtem Übergewicht?'],
    ['pl', 'Jak długo wytrzyma bateria w rowerze elektrycznym?'],
    ['tr', 'Elektrikli bisiklet bataryası ne kadar dayanır, bilen var mı?'],
    ['ru', 'Сколько служит аккумулятор электровелосипеда в среднем?'],
  ])('%s detected from the conversation, not the header', (language, text) => {
    const s = signalsOf(chat(text, text), 'en-US,en;q=0.9');
    expect(s.language).toBe(language);
    expect(s.languageSource).toBe('conversation');
  });

  test('the Accept-Language header only when the conversation is too short to tell; nothing when neither', () => {
    expect(signalsOf(chat('ok?', 'Sure.'), 'pt-BR,pt;q=0.9')).toMatchObject({ language: 'pt', languageSource: 'header' });
    expect(signalsOf(chat('ok?', 'Sure.')).language).toBeUndefined();
  });
});

describe('intent query', () => {
  test('a follow-up is resolved from the earlier turns', () => {
    const s = signalsOf(
      chat('I need new batteries for my e-bike.', 'Lithium-ion packs are the usual choice.', 'How long do those last?', 'Usually 3 to 5 years.'),
    );
    expect(s.search).toMatch(/^e-bike batteries: How long do those last\?$|^batteries e-bike: How long do those last\?$/);
  });

  test('a topic change is not prefixed with the old topic', () => {
    const s = signalsOf(
      chat('What is the capital of Australia?', 'Canberra.', 'Different question: which wireless earbuds stay in during running?', 'Ones with ear hooks.'),
    );
    expect(s.search).toBe('Different question: which wireless earbuds stay in during running?');
  });

  test.each([['thanks, that was perfect!'], ['haha good one'], ['How are you today?'], ['we talked for hours, I am so happy']])('no intent: %s', (text) => {
    expect(signalsOf(chat('What should I eat before a long run?', 'Oatmeal with banana.', text, 'You are welcome!')).search).toBe('');
  });

  test('a long message keeps its question, led by the rest of its content words, within 200 characters', () => {
    const long = `${'We are planning a big family trip with grandparents, toddlers and a dog, driving through several countries over the summer holidays. '.repeat(3)}Which car rental company allows pets?`;
    const s = signalsOf(chat(long, 'Several do, for a cleaning fee.'));
    expect(s.search.length).toBeLessThanOrEqual(MAX_QUERY_CHARS);
    expect(s.search.endsWith('Which car rental company allows pets?')).toBe(true);
    expect(s.search).toContain('trip');
  });

  test('a query of one long run without spaces is cut at 200 characters, never inside a surrogate pair', () => {
    const run = `${'a'.repeat(199)}𝐀${'b'.repeat(100)}?`; // 𝐀 (U+1D400) is a letter outside the BMP: one word with the rest
    const s = signalsOf(chat(run, 'Sure.'));
    expect(s.search).toBe('a'.repeat(199));
  });
});

describe('keywords and categories', () => {
  test('at most 10 keywords, most relevant first; IAB CT 3.0 tier 1 first, then a confident tier 2', () => {
    const s = signalsOf(
      chat(
        'Which tennis racket would you recommend for an adult beginner?',
        'Look for an oversized head and a light frame, like the Babolat Boost or Wilson Clash.',
      ),
    );
    expect(s.keywords.length).toBeLessThanOrEqual(MAX_KEYWORDS);
    expect(s.keywords[0]).toBe('tennis racket');
    expect(s.categories).toEqual(['483', '539']); // Sports, Tennis
  });

  test("another language's terms count only in that language: the French 'thé' is not the English 'the'", () => {
    const s = signalsOf(
      chat(
        'Tu peux me conseiller une série comme The Americans ou The Crown ?',
        'Essayez The Little Drummer Girl ou The Honourable Woman, deux séries très réussies.',
      ),
    );
    expect(s.language).toBe('fr');
    expect(s.categories).not.toContain('210'); // Food & Drink
    expect(s.categories[0]).toBe('JLBCU7'); // Entertainment
  });

  test('an inflected form in another language matches its term (Russian: поездку / поездка)', () => {
    expect(signalsOf(chat('Планируем поездку в Грузию на неделю. Что посмотреть?', 'Тбилиси, Казбеги и Кахетия.')).categories[0]).toBe('653'); // Travel
  });

  test('a conversation about nothing in particular has no category and no keyword of note', () => {
    expect(signalsOf(chat('hi there!', 'Hello! How can I help you today?'))).toMatchObject({ search: '', categories: [] });
  });
});
