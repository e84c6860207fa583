/**
 * The personal-data mask (domain/understanding/pii.ts): each kind replaced by
 * its typed placeholder, in the languages chat hosts send; the numbers of
 * ordinary talk left as written; a given name masked wherever it comes again;
 * the signals' cut takes the mask's placeholders too. The figures on a
 * labelled set: `npm run bench:pii` (bench/pii/).
 */
import { conversationWindow } from '../../domain/understanding/conversation-window';
import { findPii, maskMessages, maskPii, PII_MARK, scrubPii } from '../../domain/understanding/pii';

describe('masked, each by its type', () => {
  test.each([
    ['email', 'write to jane.doe84@gmail.com today', 'write to [email] today'],
    ['email, subdomain and plus', 'cc a.b+ads@mail.example.co.uk.', 'cc [email].'],
    ['phone, international', 'call +1 415 555 0132 now', 'call [phone] now'],
    ['phone, brackets', 'text (212) 555-0187 after 6pm', 'text [phone] after 6pm'],
    ['phone, French', 'mon portable : 06 12 34 56 78.', 'mon portable : [phone].'],
    ['phone, German', 'Handynummer 0171 2345678, danke', 'Handynummer [phone], danke'],
    ['phone, Spanish mobile without prefix', 'mi móvil 612 345 678', 'mi móvil [phone]'],
    ['card', 'card 4111 1111 1111 1111 exp 09/27', 'card [card] exp 09/27'],
    ['card, Amex', 'Amex 378282246310005 was declined', 'Amex [card] was declined'],
    ['IBAN', 'refund to GB29 NWBK 6016 1331 9268 19 within 14 days', 'refund to [iban] within 14 days'],
    ['IBAN, compact', 'IBAN DE89370400440532013000.', 'IBAN [iban].'],
    ['US SSN', 'my SSN is 078-05-1120', 'my SSN is [national_id]'],
    ['UK NI number', 'NI number JK 12 34 56 A please', 'NI number [national_id] please'],
    ['Spanish DNI', 'mi DNI es 12345678Z', 'mi DNI es [national_id]'],
    ['Italian codice fiscale', 'codice fiscale RSSMRA85T10A562S', 'codice fiscale [national_id]'],
    ['French NIR', 'sécurité sociale 1 85 05 78 006 084 36', 'sécurité sociale [national_id]'],
    ['PESEL by its word', 'Mój PESEL to 85010112345', 'Mój PESEL to [national_id]'],
    ['street, English', 'we moved to 742 Evergreen Terrace, Springfield', 'we moved to [address], Springfield'],
    ['street, French', 'au 12 rue de Rivoli, 3e étage', 'au [address], 3e étage'],
    ['street, German', 'Hauptstraße 12, 10115 Berlin', '[address], 10115 Berlin'],
    ['street, Spanish', 'Vivo en Calle de Alcalá 45, 2º B', 'Vivo en [address], 2º B'],
    ['street, Turkish', 'adres Bağdat Caddesi No: 123, zili çalın', 'adres [address], zili çalın'],
    ['name', 'Hi, my name is Tom Hardwick and I want a loan', 'Hi, my name is [name] and I want a loan'],
    ['name, Russian (a cue that starts with a letter outside ASCII)', 'Меня зовут Алексей Петров, мой телефон', 'Меня зовут [name], мой телефон'],
    ['name, Ukrainian', 'Привіт, мене звати Олена Коваль', 'Привіт, мене звати [name]'],
    ['name, Greek', 'Με λένε Νίκος Παπαδόπουλος και θέλω', 'Με λένε [name] και θέλω'],
  ])('%s', (_kind, text, masked) => {
    expect(maskPii(text)).toBe(masked);
  });
});

describe('left as written', () => {
  test.each([
    ['prices and years', 'The RTX 4060 at 299 dollars in 2024, or 1,250,000 units in 2023'],
    ['dates', 'from 2024-03-15 to 15.03.2024, or 12/03/2023'],
    ['year ranges', 'the 2019-2023 data and the 2023/2024 season'],
    ['thousands with spaces and dots', 'une maison à 1 250 000 €, ein Grundstück für 349.000 €, 125 000 000 inhabitants'],
    ['times and scores', 'open 10:00-21:00, the final was 21-18, 19-21, 21-15'],
    ['versions and addresses of machines', 'Node 20.11.1 on 192.168.1.1, firmware 1.0.11 build 20230425'],
    ['an ISBN, an order, a part', 'ISBN 978-0-13-468599-1, order 112-7732145-4441230, part 7731-220-04'],
    ['sizes and lists of numbers', 'sizes 38 39 40 41 and the years 2019 2020 2021'],
    ['streets without a number, a shop on Fifth Avenue', 'The Fifth Avenue store is open 24 hours, near Oxford Street'],
    ['"call me" without a name', 'call me back tomorrow, or call me at noon'],
    ['a lone "@" and a handle', 'meet @ noon, ping @sam or sam@localhost'],
  ])('%s', (_kind, text) => {
    expect(findPii(text)).toEqual([]);
    expect(maskPii(text)).toBe(text);
  });
});

describe('a conversation', () => {
  test('a name the user gave is masked wherever it comes again, the whole name as one', () => {
    const messages = [
      { role: 'user', content: 'Je m’appelle Claire. My name is Claire Dubois, really.' },
      { role: 'assistant', content: 'Bonjour Claire Dubois! Hi Claire.' },
    ];
    expect(maskMessages(messages).map((m) => m.content)).toEqual(['Je m’appelle [name]. My name is [name], really.', 'Bonjour [name]! Hi [name].']);
  });

  test('the very array when nothing is personal; otherwise a copy whose unchanged messages are the same objects', () => {
    const plain = [
      { role: 'user', content: 'Which shoes for a marathon?' },
      { role: 'assistant', content: 'Cushioned ones.' },
    ];
    expect(maskMessages(plain)).toBe(plain);
    const withPhone = [plain[0], { role: 'assistant', content: 'Call 020 7946 0958.' }];
    const masked = maskMessages(withPhone);
    expect(masked).not.toBe(withPhone);
    expect(masked[0]).toBe(plain[0]);
    expect(masked[1]).toEqual({ role: 'assistant', content: 'Call [phone].' });
    expect(withPhone[1].content).toBe('Call 020 7946 0958.');
  });

  test('the conversation window every stage reads is masked (built once per request)', () => {
    const window = conversationWindow([
      { role: 'user', content: 'Mail me at jane.doe84@gmail.com about shoes' },
      { role: 'assistant', content: 'Sure.' },
    ]);
    expect(window.map((m) => m.content)).toEqual(['Mail me at [email] about shoes', 'Sure.']);
  });
});

describe("the signals' cut", () => {
  test('cuts what the mask left, as it cuts the raw item', () => {
    const cut = ` ${PII_MARK} `;
    expect(scrubPii('Mail me at [email] or call [phone] today')).toBe(`Mail me at ${cut} or call ${cut} today`);
    expect(scrubPii('Mail me at jane@example.com today')).toBe(`Mail me at ${cut} today`);
  });

  test('cuts more than the mask: any run of 7 digits, a URL', () => {
    const cut = ` ${PII_MARK} `;
    expect(scrubPii('from 2024-03-15 on')).toBe(`from ${cut} on`);
    expect(maskPii('from 2024-03-15 on')).toBe('from 2024-03-15 on');
    expect(scrubPii('see https://example.com/reset?token=abc123 now')).toBe(`see ${cut} now`);
    expect(maskPii('see https://example.com/reset?token=abc123 now')).toBe('see https://example.com/reset?token=abc123 now');
  });
});
