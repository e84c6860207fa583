import { adRequestSchema } from '../../auction/request-schema';
import { bodyObject, compiledSchema, parseOrThrow } from '../../lib/validation';

// The route's parser is generated from the schema (lib/validation.ts compiledSchema): it must be zod's own
// parse, answer for answer, on this schema's refinements, transforms and defaults: the same output (keys,
// order, defaults) or the same error.
const viaSchema = (body: unknown) => parseOrThrow(adRequestSchema, bodyObject(body));
const parseAdRequest = (body: unknown) => parseOrThrow(compiledSchema(adRequestSchema), bodyObject(body));

const outcome = (parse: (body: unknown) => unknown, body: unknown) => {
  try {
    return { ok: JSON.stringify(parse(body)) };
  } catch (err) {
    return { error: `${(err as { code?: string }).code}: ${(err as Error).message}` };
  }
};

const base = () => ({
  userId: 'anon-42',
  chatId: 'chat-1',
  request_id: 'r-1',
  country_code: 'us',
  device: 'mobile',
  timezone: 'America/New_York',
  ip: '203.0.113.5',
  user_agent: 'Mozilla/5.0',
  messages: [
    { role: 'user', content: 'How do I bake sourdough bread?' },
    { role: 'assistant', content: 'Keep a starter.' },
  ],
});

// Each field's variants: valid ones, edge cases and invalid ones (undefined: the field left out).
const VARIANTS: Record<string, unknown[]> = {
  userId: [undefined, '', 'a', 'x'.repeat(200), 'x'.repeat(201), 'a@b', 'nul\0', 7],
  request_type: [undefined, 'contextual', 'opener', 'other', null],
  chatId: [undefined, '', 'c', 'x'.repeat(201), 3],
  nAdsBefore: [undefined, 0, -0, 5, 10_000, 10_001, -1, 1.5, '2', null],
  messages: [
    undefined,
    [],
    [{ role: 'user', content: 'hi' }],
    [
      { role: 'assistant', content: 'a' },
      { role: 'user', content: 'b' },
    ],
    [
      { role: 'user', content: 'a' },
      { role: 'user', content: 'b' },
    ],
    [
      { content: 'shoes?', role: 'user' },
      { role: 'assistant', content: '' },
    ],
    [
      { role: 'user', content: 'a', timestamp: 5 },
      { role: 'assistant', content: 'b', timestamp: '2026-11-26T03:00:00Z' },
    ],
    [
      { role: 'user', content: 'a', timestamp: -1 },
      { role: 'assistant', content: 'b' },
    ],
    [
      { role: 'user', content: 'a', extra: 1 },
      { role: 'assistant', content: 'b' },
    ],
    [
      { role: 'user', content: 'x'.repeat(20_001) },
      { role: 'assistant', content: 'b' },
    ],
    [
      { role: 'user', content: 'nul\0' },
      { role: 'assistant', content: 'b' },
    ],
    [{ role: 'user', content: 'a' }, { role: 'assistant', content: 'b' }, null],
    'text',
  ],
  ad_formats: [undefined, [], ['poll'], ['sponsored_carousel', 'sponsored_message'], ['poll', 'poll'], ['banner'], ['a', 'b', 'c', 'd'], 'poll'],
  prefetched: [undefined, true, false, 'yes'],
  request_id: [undefined, '', 'x'.repeat(200), 'x'.repeat(201)],
  country_code: [undefined, 'US', 'de', 'XX', 'usa', '', 5],
  region: [undefined, 'NY', '', 'x'.repeat(201)],
  city: [undefined, 'NYC', ''],
  device: [undefined, 'desktop', 'tablet', 'phone'],
  timezone: [undefined, 'UTC', 'america/new_york', 'Mars/Base', '', 'x'.repeat(65)],
  config: [
    undefined,
    {},
    { image_enabled: false },
    { max_headline_chars: 30 },
    { max_headline_chars: 29 },
    { max_headline_chars: 50, image_enabled: true },
    { x: 1 },
    null,
    [],
  ],
  ip: [undefined, '::1', '2001:db8::1', '999.1.1.1', '', 'nul\0'],
  user_agent: [undefined, '', 'x'.repeat(1001), 'Mozilla/5.0 (X11; Linux x86_64) ~', 'a\u0001b', 'a\r\nb', 'a\tb', 'a\u007fb', 'café', '日本', 'nul\0'],
  language: [undefined, 'EN', 'de', 'eng', '1a'],
  tmax: [undefined, 50, 2000, 49, 2001, 100.5],
  bcat: [undefined, [], ['IAB1'], [''], ['x'.repeat(21)], Array(101).fill('IAB1'), 'IAB1'],
  badv: [undefined, ['a.example'], [5]],
  site: [undefined, { domain: 'a.example' }, { page: 'ftp://x' }],
  app: [undefined, { bundle: 'com.a' }],
  // The privacy signals.
  regs: [undefined, { gdpr: 1, us_privacy: '1YNN' }, { coppa: 0, gpp: 'DBABLA~CFQZAAAAAACA.QA', gpp_sid: [7] }, { us_privacy: '1YNNN' }],
  user: [undefined, { age_group: 'adult' }, { consent: 'CQuZP8AQuZP8AAKABBENBkFgALAAAAAAAAAAF5wAQF5gAAAA' }, { consent: 'not a tc string' }],
  unknown_field: [undefined, 1],
};

/** A small deterministic generator, so that a failure names the input that failed. */
function* bodies(): Generator<unknown> {
  yield base();
  for (const [field, values] of Object.entries(VARIANTS)) {
    for (const value of values) {
      const body: Record<string, unknown> = base();
      if (value === undefined) delete body[field];
      else body[field] = value;
      yield body;
    }
  }
  let seed = 26;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let i = 0; i < 2000; i += 1) {
    const body: Record<string, unknown> = base();
    for (const [field, values] of Object.entries(VARIANTS)) {
      if (random() < 0.85) continue;
      const value = values[Math.floor(random() * values.length)];
      if (value === undefined) delete body[field];
      else body[field] = value;
    }
    // Key order of the input must not matter.
    const shuffled = Object.keys(body).sort(() => random() - 0.5);
    yield Object.fromEntries(shuffled.map((k) => [k, body[k]]));
  }
  yield null;
  yield [];
  yield 'body';
  yield undefined;
  yield JSON.parse('{"__proto__": {"x": 1}, "userId": "a"}');
}

describe("the ad request's generated parser", () => {
  it('answers every body exactly as the schema does', () => {
    let fast = 0;
    for (const body of bodies()) {
      const expected = outcome(viaSchema, body);
      expect({ body, ...outcome(parseAdRequest, body) }).toEqual({ body, ...expected });
      if (expected.ok) fast += 1;
    }
    // The generator reaches valid requests often enough to mean something.
    expect(fast).toBeGreaterThan(300);
  });

  it('fills the defaults as the schema does', () => {
    expect(parseAdRequest(base())).toEqual(viaSchema(base()));
    const parsed = parseAdRequest(base());
    expect(Object.keys(parsed)).toEqual(Object.keys(viaSchema(base())));
    expect(parsed.ad_formats).toEqual(['sponsored_message']);
    expect(parsed.config).toEqual({ image_enabled: true });
  });
});
