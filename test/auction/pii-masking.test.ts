/**
 * Personal data never leaves in conversation text (issue 48, section 3;
 * domain/understanding/pii.ts): the native DSP reads the conversation with
 * e-mail addresses, phone, card, IBAN and id numbers, street addresses and a
 * given name replaced by typed placeholders, the rest of every sentence as
 * written; the OpenRTB DSP's request and the auction log hold none of them.
 */
import { createClickhouse } from '../../lib/clickhouse/client';
import { identifier, literal } from '../../lib/clickhouse/sql';
import { adRequest, contextualRequest, useAuction, useReferenceDsp } from './support';

const h = useAuction();

const PERSONAL = [
  'jane.doe84@gmail.com',
  '+1 415 555 0132',
  '4111 1111 1111 1111',
  'GB29 NWBK 6016 1331 9268 19',
  '078-05-1120',
  '221B Baker Street',
  'Hardwick',
];
const messages = [
  {
    role: 'user',
    content:
      'My name is Tom Hardwick. Which running shoes for my first marathon in 2025? Mail me at jane.doe84@gmail.com or call +1 415 555 0132; ' +
      'I live at 221B Baker Street and will pay with 4111 1111 1111 1111 or from GB29 NWBK 6016 1331 9268 19 (SSN 078-05-1120).',
  },
  { role: 'assistant', content: 'Hi Tom Hardwick! Cushioned running shoes such as the Brooks Ghost 16 suit a first marathon, about 140 dollars.' },
];
const MASKED = [
  {
    role: 'user',
    content:
      'My name is [name]. Which running shoes for my first marathon in 2025? Mail me at [email] or call [phone]; ' +
      'I live at [address] and will pay with [card] or from [iban] (SSN [national_id]).',
  },
  { role: 'assistant', content: 'Hi [name]! Cushioned running shoes such as the Brooks Ghost 16 suit a first marathon, about 140 dollars.' },
];

/** The digits of every personal number, for a search that no spacing or punctuation can hide from. */
const DIGITS = PERSONAL.map((p) => p.replace(/\D/g, '')).filter((d) => d.length >= 7);
const leaks = (text: string) => [
  ...PERSONAL.filter((p) => text.toLowerCase().includes(p.toLowerCase())),
  ...DIGITS.filter((d) => text.replace(/\D/g, '').includes(d)),
];

describe('personal data in the conversation', () => {
  const native = useReferenceDsp(h, 'native', { price: 1 });
  const openrtb = useReferenceDsp(h, 'openrtb', { price: 1 });

  test('the native DSP gets the conversation masked, each item by its type; OpenRTB and the auction log hold none of it', async () => {
    const res = await adRequest(h, contextualRequest({ messages, country_code: 'AQ' }));
    expect(res.status).toBe(200);
    const nativeCall = native.dsp.received.find((r) => r.path === '/native/bid' && (r.body as { request_id?: string }).request_id === res.body.auction_id);
    expect(nativeCall).toBeDefined();
    expect((nativeCall!.body as { messages: unknown }).messages).toEqual(MASKED);
    expect(leaks(JSON.stringify(nativeCall!.body))).toEqual([]);

    const rtbCall = openrtb.dsp.received.find((r) => r.path.startsWith('/openrtb') && (r.body as { id?: string }).id === res.body.auction_id);
    expect(rtbCall).toBeDefined();
    const rtb = rtbCall!.body as { site?: { search?: string; keywords?: string } };
    // What the conversation is about still reaches it; the personal data does not.
    expect(rtb.site?.search ?? '').toMatch(/marathon|shoes/i);
    expect(leaks(JSON.stringify(rtbCall!.body))).toEqual([]);
    expect(JSON.stringify(rtbCall!.body)).not.toMatch(/\[(?:email|phone|card|iban|national_id|address|name)\]/);

    await h.auction.deps.log.drain();
    const clickhouse = createClickhouse();
    try {
      const rows = await Promise.all(
        ['auctions', 'auction_bids'].map(async (table) =>
          (
            await clickhouse.query({ query: `SELECT * FROM ${identifier(table)} WHERE auction_id = ${literal(res.body.auction_id)}`, format: 'JSONEachRow' })
          ).json<object>(),
        ),
      );
      expect(rows[0]).toHaveLength(1);
      expect(rows[1].length).toBeGreaterThanOrEqual(2);
      expect(leaks(JSON.stringify(rows))).toEqual([]);
    } finally {
      await clickhouse.close();
    }
  });

  test('a conversation without personal data reaches the native DSP exactly as sent (dates, prices, models and versions stay)', async () => {
    const plain = [
      { role: 'user', content: 'Is the RTX 4060 at 299 dollars worth it before 2024-11-29, or should I wait for version 2.1.4 drivers?' },
      { role: 'assistant', content: 'At 299 it is fair; the 2019-2023 cards cost 15,000 yen more. Flight LH 1234 lands at 10:20.' },
    ];
    const res = await adRequest(h, contextualRequest({ messages: plain, country_code: 'AQ' }));
    expect(res.status).toBe(200);
    const call = native.dsp.received.find((r) => r.path === '/native/bid' && (r.body as { request_id?: string }).request_id === res.body.auction_id);
    expect((call!.body as { messages: unknown }).messages).toEqual(plain);
  });
});
