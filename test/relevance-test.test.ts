/**
 * `POST /v1/ad_groups/{id}/test_relevance` (docs/api-behaviour.md, "Relevance
 * test"): an advertiser scores its ad group against a conversation it posts,
 * through the auction's own relevance (the real text model), before spending.
 */
import { randomUUID } from 'node:crypto';
import { errorBody, useOrgs } from './support/harness';
import { insertAd, insertTree } from './support/fixtures';
import { FEATURES } from '../domain/relevance/score';

const { h, org, other, api } = useOrgs();

const MARATHON = [
  { role: 'user', content: "I'm training for my first marathon and my running shoes are worn out after 500 miles. Which shoes should I get for long runs?" },
  { role: 'assistant', content: 'Look for cushioned running shoes made for long distances, and get fitted at a running store before race day.' },
];
const TAXES = [
  { role: 'user', content: 'How do I file my income tax return if I moved between two states last year?' },
  { role: 'assistant', content: 'You usually file a part-year resident return in each state and split your income by the dates you lived there.' },
];
const BREAD = [
  { role: 'user', content: 'My sourdough starter smells sour and the loaves come out flat. How do I get a better rise on my bread?' },
  { role: 'assistant', content: 'Feed the starter twice a day for a few days and let the dough proof longer in a warm place.' },
];

/** An approved campaign's ad group about running shoes, its one ad's creative approved with it. */
const runningShoes = (owner = org) =>
  insertTree(h.db, owner, {
    campaign: { status: 'active', reviewStatus: 'approved' },
    adGroup: { contextHints: ['running shoes', 'marathon training'] },
    ad: { title: 'Shoes for your next marathon', body: 'Cushioned trainers tested on 20-mile long runs.' },
  });

const testRelevance = (adGroupId: string, body: unknown, as = org) => api('POST', `/v1/ad_groups/${adGroupId}/test_relevance`, body, as);

describe('POST /v1/ad_groups/{id}/test_relevance', () => {
  test('a conversation about the ad group scores at or above the bar; the answer carries its signals', async () => {
    const { adGroup, ad } = await runningShoes();
    const res = await testRelevance(adGroup.id, { messages: MARATHON });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ad_group_id: adGroup.id,
      relevance: expect.any(Number),
      relevant: true,
      min_relevance: 0.5,
      signals: expect.any(Object),
      context_hints: ['running shoes', 'marathon training'],
      ad_id: ad.id,
    });
    expect(res.body.relevance).toBeGreaterThanOrEqual(0.5);
    expect(res.body.relevance).toBeLessThanOrEqual(1);
    // Every signal of the model, each a number; the hint's words are in the latest exchange.
    expect(Object.keys(res.body.signals).sort()).toEqual([...FEATURES].sort());
    for (const value of Object.values(res.body.signals)) expect(typeof value).toBe('number');
    expect(res.body.signals.phrase).toBe(1);
  });

  test('an unrelated conversation scores under the bar and is not relevant', async () => {
    const { adGroup } = await runningShoes();
    const res = await testRelevance(adGroup.id, { messages: TAXES });
    expect(res.status).toBe(200);
    expect(res.body.relevance).toBeLessThan(0.5);
    expect(res.body.relevant).toBe(false);
    expect(res.body.signals.phrase).toBe(0);
  });

  test('context_hints tries other hints without saving them', async () => {
    const { adGroup } = await runningShoes();
    const saved = await testRelevance(adGroup.id, { messages: BREAD });
    const tried = await testRelevance(adGroup.id, { messages: BREAD, context_hints: ['sourdough', 'bread baking'] });
    expect(tried.status).toBe(200);
    expect(tried.body.context_hints).toEqual(['sourdough', 'bread baking']);
    expect(tried.body.signals.phrase).toBe(1);
    expect(tried.body.relevance).toBeGreaterThan(saved.body.relevance);
    const read = await api('GET', `/v1/ad_groups/${adGroup.id}`);
    expect(read.body.context_hints).toEqual(['running shoes', 'marathon training']);
  });

  test("the copy read is the group's first ad with an approved creative, as the auction's index reads it", async () => {
    const { adGroup, ad } = await runningShoes();
    // First by id, but never approved: the auction does not serve it, nor read its copy.
    const first = `00000000${randomUUID().slice(8)}`;
    expect(first < ad.id).toBe(true);
    await insertAd(h.db, adGroup.id, { id: first, title: 'Knitting yarn', body: 'Merino wool' });
    const res = await testRelevance(adGroup.id, { messages: MARATHON });
    expect(res.status).toBe(200);
    expect(res.body.ad_id).toBe(ad.id);
  });

  test("before any review, the first ad's current creative stands in", async () => {
    const { adGroup, ad } = await insertTree(h.db, org, { adGroup: { contextHints: ['running shoes'] } });
    expect(ad.approvedCreative).toBeNull();
    const res = await testRelevance(adGroup.id, { messages: MARATHON });
    expect(res.status).toBe(200);
    expect(res.body.ad_id).toBe(ad.id);
  });

  test("another organization's ad group, or an unknown id, is 404 not_found", async () => {
    const { adGroup } = await runningShoes(other);
    const theirs = await testRelevance(adGroup.id, { messages: MARATHON });
    expect(theirs.status).toBe(404);
    expect(theirs.body).toEqual(errorBody('not_found', 'invalid_request_error', 'id'));
    const unknown = await testRelevance('00000000-0000-4000-8000-000000000001', { messages: MARATHON });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual(errorBody('not_found', 'invalid_request_error', 'id'));
  });

  test.each([
    ['no messages', {}, 'required', 'messages'],
    ['an empty conversation', { messages: [] }, 'required', 'messages'],
    ['a role the auction does not take', { messages: [{ role: 'system', content: 'hi' }] }, 'invalid_value', 'messages[0].role'],
    ['a message without content', { messages: [{ role: 'user' }] }, 'required', 'messages[0].content'],
    ['a message over 8000 characters', { messages: [{ role: 'user', content: 'a'.repeat(8001) }] }, 'string_too_long', 'messages[0].content'],
    [
      'more than 24 messages',
      { messages: Array.from({ length: 25 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: 'hi' })) },
      'invalid_value',
      'messages',
    ],
    ['a field the auction would not read', { messages: [{ role: 'user', content: 'hi', name: 'x' }] }, 'invalid_value', 'messages[0].name'],
    ['empty hints', { messages: MARATHON, context_hints: [] }, 'required', 'context_hints'],
    ['an empty hint', { messages: MARATHON, context_hints: ['running', ''] }, 'required', 'context_hints[1]'],
    ['a hint that is no string', { messages: MARATHON, context_hints: [7] }, 'invalid_value', 'context_hints[0]'],
    ['an unknown parameter', { messages: MARATHON, min_relevance: 0.2 }, 'invalid_value', 'min_relevance'],
  ])('400 for %s, naming the parameter', async (_what, body, code, param) => {
    const { adGroup } = await runningShoes();
    const res = await testRelevance(adGroup.id, body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(errorBody(code, 'invalid_request_error', param));
  });

  test('is in the OpenAPI document with the bounds its validator enforces', async () => {
    const doc = (await api('GET', '/v1/openapi.json')).body;
    const op = doc.paths['/v1/ad_groups/{id}/test_relevance'].post;
    expect(op.security).toEqual([{ apiKey: [] }]);
    const resolve = (node: any): any =>
      node?.$ref
        ? node.$ref
            .slice(2)
            .split('/')
            .reduce((at: any, k: string) => at[k], doc)
        : node;
    const body = resolve(op.requestBody.content['application/json'].schema);
    expect(body.required).toEqual(['messages']);
    expect(body.properties.messages).toMatchObject({ minItems: 1, maxItems: 24 });
    const message = resolve(body.properties.messages.items);
    expect(message.properties.role.enum).toEqual(['user', 'assistant']);
    expect(message.properties.content.maxLength).toBe(8000);
    expect(body.properties.context_hints).toMatchObject({ minItems: 1, items: { type: 'string', minLength: 1 } });
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '404', '429']));
  });
});
