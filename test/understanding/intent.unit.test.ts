/**
 * The intent query's follow-ups (domain/understanding/signals/intent.ts): what
 * a short reply or a "those" points at is what was just said, the assistant's
 * question the user answers included; an older aside does not crowd it out.
 */
import { ConversationReader } from '../../domain/understanding/conversation';
import { textEncoder } from '../../domain/understanding/encoder';
import { conversationSignals, loadLanguageDetector } from '../../domain/understanding/signals';
import { tokens } from '../../domain/understanding/signals/words';

const encoder = textEncoder();
const reader = new ConversationReader(encoder);
beforeAll(() => loadLanguageDetector());

const chat = (...texts: string[]) => texts.map((content, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content }));
const searchOf = (...texts: string[]) => {
  const messages = chat(...texts);
  return conversationSignals({ messages, view: reader.read(messages), encoder }).search;
};

describe('a follow-up takes its context from what was just said', () => {
  test("a reply to the assistant's question: the question's subject leads the query", () => {
    const search = searchOf(
      'We are moving to Oslo in March.',
      'Exciting! Have you found a flat yet?',
      'Not yet. Which neighbourhoods are cheapest?',
      'Grünerløkka and Tøyen are among the more affordable ones.',
    );
    expect(search).toMatch(/\bflat\b/);
    expect(search).toMatch(/Which neighbourhoods are cheapest\?$/);
  });

  test('in another language too (Spanish): the question the user answers names what the answer is about', () => {
    const search = searchOf(
      'El mes que viene empiezo un trabajo nuevo en Madrid.',
      '¡Enhorabuena! ¿Vas a ir en coche o en transporte público?',
      'En coche. ¿Dónde puedo aparcar barato?',
      'Los aparcamientos disuasorios de las afueras son los más baratos.',
    );
    expect(search).toMatch(/\bcoche\b/);
    expect(search).toMatch(/aparcar barato\?$/);
  });

  test('"those" points at the latest exchange, not at an older aside', () => {
    const search = searchOf(
      'My sister loves crime novels.',
      'Great genre! Any favourite authors?',
      'Not sure. Anyway, I need new hiking boots for the Alps in July.',
      'Leather boots with a stiff sole and ankle support suit alpine trails.',
      'How long do those take to break in?',
      'About two to three weeks of short walks.',
    );
    expect(search).toMatch(/\bboots\b/);
    expect(search).not.toMatch(/crime|novels/);
  });
});

describe('words', () => {
  test('Turkish dotted capital İ and letters typed decomposed stay in their word', () => {
    expect(tokens("İstanbul'a taşınıyor").map((t) => t.surface)).toEqual(["istanbul'a", 'taşınıyor']);
    expect(tokens('cre\u0300me brûlée').map((t) => t.key)).toEqual(['creme', 'brulee']);
  });
});
