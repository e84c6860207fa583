/**
 * The conversation window (auction/conversation-window.ts): of a request of
 * up to 200 messages of 20,000 characters, the safety screen, the in-house
 * relevance and the native DSPs see only the newest messages, each and all
 * together bounded; the request itself is accepted as the schema says.
 */
import { randomBytes } from 'node:crypto';
import { CONVERSATION_WINDOW, CUT_MARK } from '../../auction/conversation-window';
import { insertTree } from '../support/fixtures';
import { newOrg } from '../support/harness';
import { until } from '../support/wait';
import { adRequest, contextualRequest, useAuction, useReferenceDsp } from './support';

const h = useAuction();

describe('the conversation window', () => {
  const native = useReferenceDsp(h, 'native', { price: 1 });

  beforeEach(() => {
    native.dsp.set({ price: 1, noBidRate: 0 });
    native.dsp.received.length = 0;
  });

  const BENIGN = 'Cushioned running shoes help on long training runs. ';
  /** `length` characters of an ordinary sentence, repeated, with `tag` first. */
  const text = (length: number, tag = '') => (tag + ' ' + BENIGN.repeat(Math.ceil(length / BENIGN.length))).slice(0, length);

  /** An alternating conversation of `n` messages (user first, assistant last), the i-th of `contentOf(i)`. */
  const messagesOf = (n: number, contentOf: (i: number) => string) =>
    Array.from({ length: n }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: contentOf(i) }));

  /** Words no ad's hints are about. */
  const CHATTER = 'Tell me more about it please.';

  type Message = { role: string; content: string };
  const bidRequestMessages = (): Message[] => {
    const got = native.dsp.received.find((r) => r.path === '/native/bid');
    expect(got).toBeDefined();
    return (got!.body as { messages: Message[] }).messages;
  };

  test('a request of 200 long messages: the native DSP receives the newest messages, within the window', async () => {
    const messages = messagesOf(200, (i) => text(4000, `message-${i}`));
    const res = await adRequest(h, contextualRequest({ messages, country_code: 'AQ' }));
    expect(res.status).toBe(200);
    const sent = bidRequestMessages();
    const total = sent.reduce((sum, m) => sum + m.content.length, 0);
    expect(sent.length).toBeLessThanOrEqual(CONVERSATION_WINDOW.messages);
    expect(total).toBeLessThanOrEqual(CONVERSATION_WINDOW.totalChars);
    // Exactly as many of the newest as fit whole: 4 of 4,000 characters.
    expect(sent).toEqual(messages.slice(-4));
  });

  test('a message longer than the window allows reaches the DSP as its beginning and its end', async () => {
    const last = `${'a'.repeat(10_000)}${'z'.repeat(10_000)}`;
    const messages = [
      { role: 'user', content: 'Which shoes for a marathon?' },
      { role: 'assistant', content: last },
    ];
    expect((await adRequest(h, contextualRequest({ messages, country_code: 'AQ' }))).status).toBe(200);
    const sent = bidRequestMessages();
    expect(sent[0]).toEqual(messages[0]);
    const kept = CONVERSATION_WINDOW.messageChars - CUT_MARK.length;
    expect(sent[1].content).toBe(`${'a'.repeat(Math.ceil(kept / 2))}${CUT_MARK}${'z'.repeat(Math.floor(kept / 2))}`);
  });

  test('the safety screen reads the window: a cue before the newest 16,000 characters is out of it', async () => {
    const cue = 'I have decided to kill myself tonight, I already wrote the note';
    const short = messagesOf(6, (i) => (i === 2 ? cue : text(200)));
    const refused = await adRequest(h, contextualRequest({ messages: short, country_code: 'AQ' }));
    expect(refused.body).toMatchObject({ ad: null, no_fill_reason: 'sensitive_conversation', sensitive_categories: ['self_harm'] });

    // The same conversation whose last two messages fill the window: the cue is older than what the auction reads.
    const long = messagesOf(6, (i) => (i === 2 ? cue : i >= 4 ? text(CONVERSATION_WINDOW.messageChars, `m${i}`) : text(200)));
    const served = await adRequest(h, contextualRequest({ messages: long, country_code: 'AQ' }));
    expect(served.status).toBe(200);
    expect(served.body.no_fill_reason).not.toBe('sensitive_conversation');
    expect(bidRequestMessages()).toEqual(long.slice(-2));
  });

  test('the in-house relevance reads the window: a topic only in older messages finds no ad', async () => {
    const topic = `zw${randomBytes(4).toString('hex')}`;
    const org = await newOrg(h.db);
    await h.db.adAccount.updateMany({
      where: { organization: { publicId: org.org_public_id } },
      data: { logoUrl: 'https://cdn.example/logo.png', url: 'https://www.window-shop.example' },
    });
    const tree = await insertTree(h.db, org, {
      campaign: { status: 'active', reviewStatus: 'approved', startTime: new Date(Date.now() - 3_600_000), targetCountries: ['PN'] },
      adGroup: { contextHints: [topic], maxBidMicros: 2_000_000n },
    });
    native.dsp.set({ noBidRate: 1 });
    try {
      await until(() => h.auction.deps.catalog.ads.some((a) => a.adId === tree.ad.id), 'the ad in the index');
      // In the latest exchange, the topic finds the ad.
      const recent = messagesOf(30, (i) => (i === 28 ? `I need ${topic}` : CHATTER));
      const found = await adRequest(h, contextualRequest({ messages: recent, country_code: 'PN' }));
      expect(found.body.ad).toMatchObject({ domain: 'www.window-shop.example' });
      // Only in messages older than the newest 24 (once weighed half, enough for a one-term hint): no ad.
      const older = messagesOf(200, (i) => (i < 200 - CONVERSATION_WINDOW.messages ? `I need ${topic}` : CHATTER));
      const missed = await adRequest(h, contextualRequest({ messages: older, country_code: 'PN' }));
      expect(missed.status).toBe(200);
      expect(missed.body.ad?.domain).not.toBe('www.window-shop.example');
    } finally {
      await h.db.campaign.update({ where: { id: tree.campaign.id }, data: { status: 'paused' } });
    }
  });
});
