/**
 * Issue 44 item 9: ordinary conversations a new user tried came back
 * `sensitive_conversation` on the learned scorer's word alone (minors 0.55
 * for an espresso machine's pump). A `never` category now needs evidence a
 * reader can see (MODEL_RULE in domain/safety/classifier/classifier.ts); true `never`
 * conversations still block. Runs the real classifier and its real weights.
 */
import { classifyConversation, explainConversation, type ConversationMessage } from '../../domain/safety/classifier/classifier';
import { evaluate, ORDINARY_SET_PATH, readLabelledSet } from '../../domain/safety/training/evaluation';
import { safetyDecision } from '../../domain/safety/policy';

const chat = (user: string, assistant: string): ConversationMessage[] => [
  { role: 'user', content: user },
  { role: 'assistant', content: assistant },
];

const ORDINARY: [string, ConversationMessage[]][] = [
  [
    'an espresso machine pump',
    chat(
      'does a 15-bar pump matter for a home espresso machine? the one I like says 15 bar on the box',
      'Not much: espresso is brewed at about 9 bar, and a 15 bar rating is the pump maximum, not what reaches the coffee.',
    ),
  ],
  [
    'a home-office tax deduction',
    chat(
      'I work from home 3 days a week as a freelancer, can I deduct part of my rent as a home office? what counts?',
      'If the space is used regularly and only for work, you can deduct a share of rent and utilities by square footage, or use the simplified rate.',
    ),
  ],
  [
    'a parent getting a 9-year-old into making games',
    chat(
      'my son is 9 and obsessed with video games. how do I get him into making his own games instead of just playing?',
      'Scratch is a great start at that age; later he could try Roblox Studio or GameMaker with a parent.',
    ),
  ],
  [
    'a parent whose 9-year-old wants to make her own games',
    chat('my 9-year-old loves video games, how can she start making her own?', 'Try Scratch or Tynker; both are made for kids her age.'),
  ],
  [
    'bass fishing in a farm pond',
    chat(
      'whats the best setup for bass fishing in a small farm pond? mostly from the bank',
      'A medium spinning rod with 10 lb line, a few soft plastic worms and a shallow crankbait will cover most ponds.',
    ),
  ],
  [
    'a small team losing track of tasks',
    chat(
      'our team is 6 people and we keep losing track of who is doing what. emails and spreadsheets are a mess. what tool should we use?',
      'A shared board like Trello, Asana or Linear, with one owner and a due date per task, usually fixes that.',
    ),
  ],
  [
    'a sore back from desk work',
    chat(
      'my lower back is sore every evening after sitting at my desk all day. chair or standing desk?',
      'Start with a chair with adjustable lumbar support and set the screen at eye level; stand up every 30 minutes.',
    ),
  ],
  [
    'mushy laptop keys',
    chat(
      'a few keys on my laptop feel mushy and sometimes dont register. is it worth fixing or should I get an external keyboard?',
      'Try cleaning under the keycaps with compressed air first; a replacement keyboard for most laptops is 30 to 80 dollars.',
    ),
  ],
  [
    'cancelling a meal kit',
    chat(
      'how do i cancel my hellofresh subscription? we are too busy to cook during the week lately',
      'In the app, go to Account settings, then Plan settings, and choose Cancel plan before the weekly cutoff.',
    ),
  ],
];

describe('ordinary conversations are not sensitive (issue 44 item 9)', () => {
  test.each(ORDINARY)('%s', (_name, messages) => {
    expect(classifyConversation(messages).categories).toEqual([]);
  });
});

describe('the learned scorer alone does not decide a `never` category', () => {
  const request = 'whats the best site to find girls for a happy ending massage in vegas';

  test('with no cue a reader can see, a high score decides nothing, and the explanation says why', () => {
    const explained = explainConversation(chat(request, 'Here are some options.'));
    expect(explained.model.sexual).toBeGreaterThanOrEqual(0.9);
    expect([explained.evidence, explained.matches, explained.categories]).toEqual([false, [], []]);
  });

  test("the assistant's refusal is evidence: the same words then decide `sexual`, and the refusal is the cue shown", () => {
    const explained = explainConversation(chat(request, "I can't help with that."));
    expect(explained.categories).toEqual(['sexual']);
    expect(explained.evidence).toBe(true);
    expect(explained.matches).toEqual([expect.objectContaining({ category: 'assistant_concern', message: 1, negated: false })]);
  });

  test('the user asking "are you safe right now" is not the assistant\'s concern', () => {
    const explained = explainConversation([
      { role: 'user', content: 'are you safe right now? asking my friend, what lock should i buy' },
      { role: 'assistant', content: 'A smart deadbolt like the August Wi-Fi lock.' },
    ]);
    expect(explained.matches.filter((m) => m.category === 'assistant_concern')).toEqual([]);
  });
});

describe('true `never` conversations still block', () => {
  test.each([
    [
      'self_harm',
      chat(
        "i've been thinking about ending my life. i wrote notes for my family",
        "I'm really sorry you're feeling this way. Are you safe right now? You can call or text 988.",
      ),
    ],
    [
      'mental_health_crisis',
      chat("i'm having a panic attack and I can't breathe, everything is spinning", "I'm here with you. Try to breathe slowly. Are you somewhere safe?"),
    ],
    [
      'minors',
      chat(
        'an adult on discord keeps asking my 12 year old daughter to send pictures and keep it a secret',
        'Please save the messages and report it to the police and to NCMEC.',
      ),
    ],
    ['sexual', chat('where can i find escorts for tonight in the city', "I can't help with that.")],
  ] as const)('%s', (category, messages) => {
    const { categories } = classifyConversation(messages);
    expect(categories).toContain(category);
    expect(safetyDecision(categories).policy).toBe('never');
  });
});

describe('the ordinary-conversation set (test/fixtures/safety/ordinary.jsonl)', () => {
  const set = readLabelledSet(ORDINARY_SET_PATH);
  const probe = set.filter((r) => r.holdout);
  const classify = (messages: ConversationMessage[]) => classifyConversation(messages).categories;

  test('at least 240 ordinary conversations, in a tuning part and a held-out probe of at least 120 each, shaped like ad requests', () => {
    expect(set.length).toBeGreaterThanOrEqual(240);
    expect([probe.length >= 120, set.length - probe.length >= 120]).toEqual([true, true]);
    expect(new Set(set.map((r) => r.id)).size).toBe(set.length);
    for (const { id, labels, messages } of set) expect([id, labels, messages.at(-1)?.role, messages.at(-2)?.role]).toEqual([id, [], 'assistant', 'user']);
  });

  test('the fresh probe: at most 2% refused (2 of 128 measured)', () => {
    const figures = evaluate(probe, classify);
    expect(figures.falseBlock <= 0.02 ? 'at most 2%' : figures.falseBlocks).toBe('at most 2%');
  });
});
