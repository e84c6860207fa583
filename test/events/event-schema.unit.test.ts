/**
 * One declaration of a collected event (domain/events/event.ts collectedEventSchema): the
 * `/api/collect` OpenAPI body is generated from it and parseEvent validates with it, answering
 * the spec's codes (`required`, `invalid_value`) with the offending field as `param`.
 */
import type { z } from 'zod';
import { DomainError } from '../../domain/errors';
import { collectedEventSchema, MAX_STRING_LENGTH, OBJECT_LIMITS, parseEvent } from '../../domain/events/event';
import { collectOperation } from '../../api/events/collect';

const errorOf = (value: unknown, prefix?: string) => {
  try {
    parseEvent(value, prefix);
  } catch (err) {
    if (err instanceof DomainError) return { code: err.code, param: err.param };
    throw err;
  }
  return null;
};

test('the operation documents the very schema parseEvent validates with', () => {
  const documented = collectOperation({} as never).rawBody!['application/json'] as z.ZodUnion;
  expect(documented.options[0]).toBe(collectedEventSchema);
});

test('a valid event: null read as absent, unknown fields and channel dropped, timestamp floored', () => {
  expect(parseEvent({ event_name: 'purchase', tag_id: null, channel: 'web', extra: 1, timestamp: 1700000000.9, params: { value: 5 } })).toEqual({
    event_name: 'purchase',
    timestamp: 1700000000,
    params: { value: 5 },
  });
});

test.each([
  [[1, 2], { code: 'invalid_value', param: null }],
  [{}, { code: 'required', param: 'event_name' }],
  [{ event_name: null }, { code: 'required', param: 'event_name' }],
  [{ event_name: '' }, { code: 'required', param: 'event_name' }],
  [{ event_name: 5 }, { code: 'invalid_value', param: 'event_name' }],
  [
    { event_name: 'x', page_url: 'a'.repeat(MAX_STRING_LENGTH + 1) },
    { code: 'invalid_value', param: 'page_url' },
  ],
  [
    { event_name: 'x', click_id: '\ud800' },
    { code: 'invalid_value', param: 'click_id' },
  ],
  [
    { event_name: 'x', attribution_type: 'tv' },
    { code: 'invalid_value', param: 'attribution_type' },
  ],
  [
    { event_name: 'x', timestamp: -1 },
    { code: 'invalid_value', param: 'timestamp' },
  ],
  [
    { event_name: 'x', timestamp: '1700000000' },
    { code: 'invalid_value', param: 'timestamp' },
  ],
  [
    { event_name: 'x', params: [1] },
    { code: 'invalid_value', param: 'params' },
  ],
  [
    { event_name: 'x', params: { a: { b: '\udc00' } } },
    { code: 'invalid_value', param: 'params.a.b' },
  ],
])('case %#: the error of an invalid event', (event, expected) => {
  expect(errorOf(event)).toEqual(expected);
});

test("a batch item's errors name it by its place in the batch", () => {
  let deep: Record<string, unknown> = {};
  for (let i = 0; i < OBJECT_LIMITS.maxDepth; i++) deep = { d: deep };
  expect(errorOf({ event_name: 'x', consent: deep }, 'events[3].')).toEqual({ code: 'invalid_value', param: 'events[3].consent' });
  expect(errorOf('not an event', 'events[0].')).toEqual({ code: 'invalid_value', param: 'events[0]' });
  expect(errorOf({ event_name: 'x', params: { a: ['\ud800'] } }, 'events[1].')).toEqual({ code: 'invalid_value', param: 'events[1].params.a[0]' });
});
