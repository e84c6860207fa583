import type { z } from 'zod';
import { toErrorResponse } from '../lib/http/errors';
import { DomainError } from '../domain/errors';
import { parseOrThrow } from '../lib/validation';
import { adGroupCreateSchema, adGroupUpdateSchema } from '../domain/campaigns/ad-group-schema';
import { adCreateSchema, adUpdateSchema } from '../domain/campaigns/ad-schema';
import { campaignCreateSchema, campaignListFilterSchema, campaignUpdateSchema, targetingSchema } from '../domain/campaigns/campaign-schema';

/** The spec's error codes as the request schemas produce them (no I/O here). */

function errorOf(schema: z.ZodType, input: unknown) {
  try {
    parseOrThrow(schema, input);
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    const { code, param } = err as DomainError;
    const { status, body } = toErrorResponse(err);
    return { status, code, type: body.error.type, param };
  }
  throw new Error(`parsed without error: ${JSON.stringify(input)}`);
}
const invalid = (code: string, param: string | null) => ({ status: 400, code, type: 'invalid_request_error', param });

const card = { type: 'chat_card', title: 'Run faster', body: 'Light shoes' };
const poll = { type: 'poll', title: 'Which distance?', options: ['5k', '10k'], target_url: 'https://shoes.example/poll' };
const campaign = (overrides: Record<string, unknown> = {}) => ({
  name: 'Spring sale',
  budget: { lifetime_spend_limit_micros: 990_000 },
  ad_groups: [{ ads: [{ creative: card }] }],
  ...overrides,
});
/** A campaign whose only ad is `ad`. */
const withAd = (ad: Record<string, unknown>) => campaign({ ad_groups: [{ ads: [ad] }] });
const AD = 'ad_groups[0].ads[0]';

describe('campaign create', () => {
  test('minimal body: defaults filled, ad group named by position', () => {
    expect(parseOrThrow(campaignCreateSchema, campaign({ ad_groups: [{ ads: [{ creative: card }] }, { name: 'Polls', ads: [{ creative: poll }] }] }))).toEqual({
      name: 'Spring sale',
      budget: { lifetime_spend_limit_micros: 990_000 },
      ad_groups: [
        { name: 'Ad group 1', ads: [{ auto_generate: false, creative: card }] },
        { name: 'Polls', ads: [{ auto_generate: false, creative: poll }] },
      ],
      recurring_frequency: 'daily',
      pricing_model: 'cpm',
    });
  });

  test('every field', () => {
    const body = campaign({
      description: 'All shoes',
      start_time: 1_900_000_000,
      end_time: 1_900_086_400,
      targeting: { locations: { include: [{ country_code: 'us' }] } },
      recurring_frequency: 'weekly',
      pricing_model: 'cpc',
      ad_account_id: '0b5e2a3c-1111-4222-8333-444455556666',
      ad_groups: [
        {
          name: 'Runners',
          context_hints: ['running'],
          bidding_config: { billing_event_type: 'impression', max_bid_micros: 100_000_000 },
          ads: [{ name: 'A', creative: { ...card, cta: 'Shop', file_id: 'uploads/2026/01/ab.png' } }],
        },
      ],
    });
    expect(parseOrThrow(campaignCreateSchema, body)).toEqual({
      ...body,
      targeting: ['US'],
      ad_groups: [{ ...body.ad_groups[0], ads: [{ name: 'A', auto_generate: false, creative: { ...card, cta: 'Shop', file_id: 'uploads/2026/01/ab.png' } }] }],
    });
  });

  test.each([
    ['name missing', { name: undefined }, 'required', 'name'],
    ['name empty', { name: '' }, 'required', 'name'],
    ['name of 2 characters', { name: 'ab' }, 'invalid_value', 'name'],
    ['name of 101 characters', { name: 'x'.repeat(101) }, 'string_too_long', 'name'],
    ['budget missing', { budget: undefined }, 'required', 'budget.lifetime_spend_limit_micros'],
    ['budget without the limit', { budget: {} }, 'required', 'budget.lifetime_spend_limit_micros'],
    ['budget below 990000', { budget: { lifetime_spend_limit_micros: 989_999 } }, 'invalid_value', 'budget.lifetime_spend_limit_micros'],
    ['budget not an integer', { budget: { lifetime_spend_limit_micros: 990_000.5 } }, 'invalid_value', 'budget.lifetime_spend_limit_micros'],
    ['budget as a string', { budget: { lifetime_spend_limit_micros: '990000' } }, 'invalid_value', 'budget.lifetime_spend_limit_micros'],
    ['ad_groups missing', { ad_groups: undefined }, 'required', 'ad_groups'],
    ['ad_groups empty', { ad_groups: [] }, 'required', 'ad_groups'],
    ["an ad group's ads missing", { ad_groups: [{ name: 'x' }] }, 'required', 'ad_groups[0].ads'],
    ["an ad group's ads empty", { ad_groups: [{ ads: [] }] }, 'required', 'ad_groups[0].ads'],
    ['mixed creative types', { ad_groups: [{ ads: [{ creative: card }, { creative: poll }] }] }, 'invalid_value', 'ad_groups[0].ads'],
    [
      'max_bid_micros 0',
      { ad_groups: [{ bidding_config: { max_bid_micros: 0 }, ads: [{ creative: card }] }] },
      'invalid_value',
      'ad_groups[0].bidding_config.max_bid_micros',
    ],
    [
      'max_bid_micros 100000001',
      { ad_groups: [{ bidding_config: { max_bid_micros: 100_000_001 }, ads: [{ creative: card }] }] },
      'invalid_value',
      'ad_groups[0].bidding_config.max_bid_micros',
    ],
    [
      'max_bid_micros 1.5',
      { ad_groups: [{ bidding_config: { max_bid_micros: 1.5 }, ads: [{ creative: card }] }] },
      'invalid_value',
      'ad_groups[0].bidding_config.max_bid_micros',
    ],
    ['ad group name over 255', { ad_groups: [{ name: 'x'.repeat(256), ads: [{ creative: card }] }] }, 'string_too_long', 'ad_groups[0].name'],
    ['start_time not an integer', { start_time: 1_900_000_000.5 }, 'invalid_value', 'start_time'],
    ['start_time as a string', { start_time: '1900000000' }, 'invalid_value', 'start_time'],
    ['end_time not an integer', { end_time: 1.5 }, 'invalid_value', 'end_time'],
    ['unknown recurring_frequency', { recurring_frequency: 'hourly' }, 'invalid_value', 'recurring_frequency'],
    ['unknown pricing_model', { pricing_model: 'cpa' }, 'invalid_value', 'pricing_model'],
    ['malformed ad_account_id', { ad_account_id: 'acct_1' }, 'invalid_value', 'ad_account_id'],
    ['unknown top-level field', { colour: 'red' }, 'invalid_value', 'colour'],
    ['unknown nested field', { budget: { lifetime_spend_limit_micros: 990_000, daily: 1 } }, 'invalid_value', 'budget.daily'],
  ])('%s', (_name, overrides, code, param) => {
    expect(errorOf(campaignCreateSchema, campaign(overrides))).toEqual(invalid(code, param));
  });

  test('bounds that pass: budget 990000, max bid 1 and 100000000, end_time null', () => {
    const body = campaign({
      end_time: null,
      ad_groups: [
        { bidding_config: { max_bid_micros: 1 }, ads: [{ creative: card }] },
        { bidding_config: { max_bid_micros: 100_000_000 }, ads: [{ creative: card }] },
      ],
    });
    expect(parseOrThrow(campaignCreateSchema, body)).toMatchObject({ end_time: null, budget: { lifetime_spend_limit_micros: 990_000 } });
  });
});

describe('creatives and ads (nested paths are prefixed)', () => {
  test.each([
    ['creative missing', {}, 'invalid_value', `${AD}.creative`],
    ['creative a string', { creative: 'chat_card' }, 'invalid_value', `${AD}.creative`],
    ['creative an array', { creative: [card] }, 'invalid_value', `${AD}.creative`],
    ['creative null', { creative: null }, 'invalid_value', `${AD}.creative`],
    ['creative without type', { creative: { title: 'x' } }, 'invalid_value', `${AD}.creative.type`],
    ['unknown creative.type', { creative: { ...card, type: 'video' } }, 'invalid_value', `${AD}.creative.type`],
    ['card title missing', { creative: { type: 'chat_card', body: 'b' } }, 'required', `${AD}.creative.title`],
    ['card title empty', { creative: { ...card, title: '' } }, 'required', `${AD}.creative.title`],
    ['card title of 31 characters', { creative: { ...card, title: 'x'.repeat(31) } }, 'string_too_long', `${AD}.creative.title`],
    ['card title over 30 with auto_generate', { auto_generate: true, creative: { ...card, title: 'x'.repeat(31) } }, 'string_too_long', `${AD}.creative.title`],
    ['both file_id and image_url', { creative: { ...card, file_id: 'f', image_url: 'https://x.example/a.png' } }, 'invalid_value', `${AD}.creative.file_id`],
    ['poll title missing', { creative: { ...poll, title: undefined } }, 'required', `${AD}.creative.title`],
    ['poll title of 121 characters', { creative: { ...poll, title: 'x'.repeat(121) } }, 'string_too_long', `${AD}.creative.title`],
    ['poll options missing', { creative: { ...poll, options: undefined } }, 'invalid_value', `${AD}.creative.options`],
    ['poll options not a list', { creative: { ...poll, options: '5k,10k' } }, 'invalid_value', `${AD}.creative.options`],
    ['one poll option', { creative: { ...poll, options: ['5k'] } }, 'invalid_value', `${AD}.creative.options`],
    ['five poll options', { creative: { ...poll, options: ['a', 'b', 'c', 'd', 'e'] } }, 'invalid_value', `${AD}.creative.options`],
    ['a poll option not a string', { creative: { ...poll, options: ['a', 2] } }, 'invalid_value', `${AD}.creative.options`],
    ['an empty poll option', { creative: { ...poll, options: ['a', ''] } }, 'invalid_value', `${AD}.creative.options`],
    ['poll target_url missing', { creative: { ...poll, target_url: undefined } }, 'required', `${AD}.creative.target_url`],
    ['poll target_url relative', { creative: { ...poll, target_url: '/poll' } }, 'invalid_value', `${AD}.creative.target_url`],
    ['poll target_url not http(s)', { creative: { ...poll, target_url: 'ftp://shoes.example/poll' } }, 'invalid_value', `${AD}.creative.target_url`],
    ['a card field on a poll', { creative: { ...poll, body: 'b' } }, 'invalid_value', `${AD}.creative.body`],
    ['auto_generate on a poll', { auto_generate: true, creative: poll }, 'poll_cannot_be_ai', `${AD}.auto_generate`],
    ['auto_generate not a boolean', { auto_generate: 'yes', creative: card }, 'invalid_value', `${AD}.auto_generate`],
    ['ad name empty', { name: '', creative: card }, 'required', `${AD}.name`],
  ])('%s', (_name, ad, code, param) => {
    expect(errorOf(campaignCreateSchema, withAd(ad))).toEqual(invalid(code, param));
  });

  test('auto_generate makes the card title and body optional', () => {
    expect(parseOrThrow(campaignCreateSchema, withAd({ auto_generate: true, creative: { type: 'chat_card' } })).ad_groups[0].ads[0]).toEqual({
      auto_generate: true,
      creative: { type: 'chat_card' },
    });
  });

  test('limits that pass: card title 30, poll title 120, 4 options, auto_generate false on a poll', () => {
    expect(() => parseOrThrow(campaignCreateSchema, withAd({ creative: { ...card, title: 'x'.repeat(30) } }))).not.toThrow();
    expect(() =>
      parseOrThrow(campaignCreateSchema, withAd({ auto_generate: false, creative: { ...poll, title: 'x'.repeat(120), options: ['a', 'b', 'c', 'd'] } })),
    ).not.toThrow();
  });

  test('POST /v1/ads: top-level paths', () => {
    expect(errorOf(adCreateSchema, { creative: card })).toEqual(invalid('required', 'ad_group_id'));
    expect(errorOf(adCreateSchema, { ad_group_id: 'g' })).toEqual(invalid('invalid_value', 'creative'));
    expect(errorOf(adCreateSchema, { ad_group_id: 'g', creative: { type: 'chat_card' } })).toEqual(invalid('required', 'creative.title'));
    expect(errorOf(adCreateSchema, { ad_group_id: 'g', auto_generate: true, creative: poll })).toEqual(invalid('poll_cannot_be_ai', 'auto_generate'));
    expect(parseOrThrow(adCreateSchema, { ad_group_id: 'g', creative: card })).toEqual({ ad_group_id: 'g', auto_generate: false, creative: card });
  });

  test('POST /v1/ads/{ad_id}: a replacement card needs its title; auto_generate is not accepted', () => {
    expect(errorOf(adUpdateSchema, { creative: { type: 'chat_card', body: 'b' } })).toEqual(invalid('required', 'creative.title'));
    expect(errorOf(adUpdateSchema, { auto_generate: true })).toEqual(invalid('invalid_value', 'auto_generate'));
    expect(errorOf(adUpdateSchema, { status: 'deleted' })).toEqual(invalid('invalid_value', 'status'));
    expect(errorOf(adUpdateSchema, { creative: null })).toEqual(invalid('invalid_value', 'creative'));
    expect(parseOrThrow(adUpdateSchema, { name: 'n', status: 'archived' })).toEqual({ name: 'n', status: 'archived' });
  });
});

describe('ad groups', () => {
  const group = (overrides: Record<string, unknown> = {}) => ({
    campaign_id: 'c',
    name: 'Runners',
    context_hints: ['running'],
    ads: [{ creative: card }],
    ...overrides,
  });

  test.each([
    ['campaign_id missing', { campaign_id: undefined }, 'required', 'campaign_id'],
    ['name missing', { name: undefined }, 'required', 'name'],
    ['name over 255', { name: 'x'.repeat(256) }, 'string_too_long', 'name'],
    ['context_hints missing', { context_hints: undefined }, 'required', 'context_hints'],
    ['context_hints empty', { context_hints: [] }, 'required', 'context_hints'],
    ['context_hints not strings', { context_hints: [1] }, 'invalid_value', 'context_hints[0]'],
    ['ads missing', { ads: undefined }, 'required', 'ads'],
    ['ads empty', { ads: [] }, 'required', 'ads'],
    ['mixed creative types', { ads: [{ creative: poll }, { creative: card }] }, 'invalid_value', 'ads'],
    ['max_bid_micros out of range', { bidding_config: { max_bid_micros: 100_000_001 } }, 'invalid_value', 'bidding_config.max_bid_micros'],
    ['an ad without creative', { ads: [{ creative: card }, { name: 'x' }] }, 'invalid_value', 'ads[1].creative'],
    ['auto_generate on a poll', { ads: [{ auto_generate: true, creative: poll }] }, 'poll_cannot_be_ai', 'ads[0].auto_generate'],
  ])('create: %s', (_name, overrides, code, param) => {
    expect(errorOf(adGroupCreateSchema, group(overrides))).toEqual(invalid(code, param));
  });

  test('create: name 255 passes, max bid optional', () => {
    expect(parseOrThrow(adGroupCreateSchema, group({ name: 'x'.repeat(255) }))).toEqual({
      ...group({ name: 'x'.repeat(255) }),
      ads: [{ auto_generate: false, creative: card }],
    });
  });

  test.each([
    ['max_bid_micros 0', { bidding_config: { max_bid_micros: 0 } }, 'invalid_value', 'bidding_config.max_bid_micros'],
    ['max_bid_micros 2.5', { bidding_config: { max_bid_micros: 2.5 } }, 'invalid_value', 'bidding_config.max_bid_micros'],
    ['context_hints empty', { context_hints: [] }, 'required', 'context_hints'],
    ['unknown status', { status: 'deleted' }, 'invalid_value', 'status'],
    ['a create-only field', { campaign_id: 'c' }, 'invalid_value', 'campaign_id'],
  ])('update: %s', (_name, body, code, param) => {
    expect(errorOf(adGroupUpdateSchema, body)).toEqual(invalid(code, param));
  });

  test('update: null max bid unsets it', () => {
    expect(parseOrThrow(adGroupUpdateSchema, { bidding_config: { max_bid_micros: null } })).toEqual({ bidding_config: { max_bid_micros: null } });
  });
});

describe('campaign update', () => {
  test.each([
    ['status', { status: 'active' }, 'use_status_action', 'status'],
    ['status, even next to another error', { name: 'x', status: 'paused', colour: 1 }, 'use_status_action', 'status'],
    ['review_status', { review_status: 'approved' }, 'invalid_value', 'review_status'],
    ['recurring_frequency', { recurring_frequency: 'weekly' }, 'invalid_value', 'recurring_frequency'],
    ['pricing_model', { pricing_model: 'cpc' }, 'invalid_value', 'pricing_model'],
    ['budget below 990000', { budget: { lifetime_spend_limit_micros: 1 } }, 'invalid_value', 'budget.lifetime_spend_limit_micros'],
    ['start_time not an integer', { start_time: 12.5 }, 'invalid_value', 'start_time'],
    ['end_time not an integer', { end_time: '2030-01-01' }, 'invalid_value', 'end_time'],
    ['name too short', { name: 'ab' }, 'invalid_value', 'name'],
    ['ad_groups', { ad_groups: [] }, 'invalid_value', 'ad_groups'],
  ])('%s', (_name, body, code, param) => {
    expect(errorOf(campaignUpdateSchema, body)).toEqual(invalid(code, param));
  });

  test('partial bodies parse to just their fields', () => {
    expect(parseOrThrow(campaignUpdateSchema, {})).toEqual({});
    expect(parseOrThrow(campaignUpdateSchema, { end_time: null, description: null })).toEqual({ end_time: null, description: null });
    expect(parseOrThrow(campaignUpdateSchema, { targeting: { locations: { include: [{ id: 'fr' }] } } })).toEqual({ targeting: ['FR'] });
  });
});

describe('country targeting', () => {
  const parse = (include: unknown) => parseOrThrow(targetingSchema, { locations: { include } });

  test('codes are case-insensitive in, uppercase out; country_code is read before id; duplicates collapse', () => {
    expect(parse([{ country_code: 'us' }, { id: 'De' }, { country_code: 'fr', id: 'it' }, { country_code: 'US', type: 'country', id: 'US' }])).toEqual([
      'US',
      'DE',
      'FR',
    ]);
  });

  test('sub-country detail is ignored', () => {
    expect(parse([{ country_code: 'US', type: 'region', region: 'CA', city: 'San Francisco' }])).toEqual(['US']);
  });

  test('omitted, empty or null targeting is untargeted', () => {
    expect(parse([])).toEqual([]);
    expect(parseOrThrow(targetingSchema, {})).toEqual([]);
    expect(parseOrThrow(targetingSchema, { locations: {} })).toEqual([]);
    expect(parseOrThrow(targetingSchema, null)).toEqual([]);
  });

  test.each([
    ['an entry with neither country_code nor id', [{ type: 'country' }]],
    ['an unknown code', [{ country_code: 'ZZ' }]],
    ['a bad country_code, even with a good id (country_code is read first)', [{ country_code: 'USA', id: 'US' }]],
    ['a region code', [{ country_code: 'US-CA' }]],
    ['a bare string', ['US']],
    ['a numeric code', [{ country_code: 840 }]],
    ['a bad entry after good ones', [{ country_code: 'US' }, {}]],
  ])('%s → invalid_value on targeting.locations.include', (_name, include) => {
    expect(errorOf(campaignCreateSchema, campaign({ targeting: { locations: { include } } }))).toEqual(invalid('invalid_value', 'targeting.locations.include'));
  });

  test('include not a list', () => {
    expect(errorOf(targetingSchema, { locations: { include: 'US' } })).toEqual(invalid('invalid_value', 'locations.include'));
  });
});

test('list filter: a malformed ad_account_id is invalid_value', () => {
  expect(errorOf(campaignListFilterSchema, { ad_account_id: 'nope' })).toEqual(invalid('invalid_value', 'ad_account_id'));
});
