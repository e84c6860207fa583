/**
 * The OpenAPI document says what the validators enforce (issue 44, contract
 * precision): what each insights endpoint documents for aggregation_level and
 * the JSON of filters[] / sort[] / time_ranges[] is accepted by its validator,
 * and a chat card cannot document file_id and image_url together.
 */
import { z } from 'zod';
import { insightsOperations } from '../../api/insights/routes';
import { creativeInputSchema } from '../../domain/creatives/schema';
import { LEVELS, parseInsightsQuery, type Level } from '../../domain/insights/query';
import { buildOpenApiDocument } from '../../lib/http/openapi';

type Parameter = { name: string; schema?: { enum?: string[] }; content?: Record<string, { schema: Record<string, unknown> }> };

// The document is built from the declarations alone; no handler runs, so no database or ClickHouse is needed.
const document = buildOpenApiDocument(insightsOperations({} as never, {} as never), { title: 'insights', version: 'test' }) as unknown as {
  paths: Record<string, { get: { parameters: Parameter[] } }>;
};
const SCOPES: [string, Level][] = [
  ['/v1/ad_account/insights', 'ad_account'],
  ['/v1/campaigns/{campaign_id}/insights', 'campaign'],
  ['/v1/ad_groups/{ad_group_id}/insights', 'ad_group'],
  ['/v1/ads/{ad_id}/insights', 'ad'],
];
const parameter = (path: string, name: string) => document.paths[path].get.parameters.find((p) => p.name === name)!;
const NOW = Date.UTC(2026, 10, 28) / 1000;

describe.each(SCOPES)('%s', (path, scope) => {
  test('aggregation_level lists exactly the levels the endpoint accepts', () => {
    const documented = parameter(path, 'aggregation_level').schema?.enum;
    const accepted = LEVELS.filter((level) => {
      try {
        parseInsightsQuery({ aggregation_level: level }, scope, NOW);
        return true;
      } catch {
        return false;
      }
    });
    expect(documented).toEqual(accepted);
    expect(accepted[0]).toBe(scope);
  });

  test.each(['filters[]', 'sort[]', 'time_ranges[]'])('%s is documented as JSON content, the shape the handler checks', (name) => {
    const p = parameter(path, name);
    expect(p.schema).toBeUndefined();
    expect(Object.keys(p.content ?? {})).toEqual(['application/json']);
  });

  test('every documented filter shape is accepted; id filters only at or above the scope', () => {
    const schema = parameter(path, 'filters[]').content!['application/json'].schema as { anyOf: { properties: { field: { enum?: string[] } } }[] };
    const idFields = schema.anyOf.flatMap((branch) => branch.properties.field.enum ?? []).filter((f) => f !== 'source');
    const examples = [
      { field: 'impressions', operator: 'IN', value: [1, 2] },
      { field: 'ad.clicks', operator: 'GREATER_THAN', value: 0.5 },
      { field: 'spend', operator: 'LESS_THAN', value: -1 },
      { field: 'source', operator: 'IN', value: ['own'] },
      ...idFields.map((field) => ({ field, operator: 'IN', value: ['00000000-0000-4000-8000-000000000000'] })),
    ];
    for (const example of examples) expect(() => parseInsightsQuery({ 'filters[]': JSON.stringify(example) }, scope, NOW)).not.toThrow();
    const levelsAbove = (['campaign', 'ad_group', 'ad'] as const).filter((l) => LEVELS.indexOf(l) <= LEVELS.indexOf(scope));
    expect(idFields.sort()).toEqual(levelsAbove.flatMap((l) => [`${l}.id`, `${l}_id`]).sort());
    for (const finer of (['campaign', 'ad_group', 'ad'] as const).filter((l) => !levelsAbove.includes(l as never))) {
      expect(() => parseInsightsQuery({ 'filters[]': JSON.stringify({ field: `${finer}.id`, operator: 'IN', value: ['x'] }) }, scope, NOW)).toThrow();
    }
  });
});

test('a chat card documents file_id and image_url as one or the other, as its validator enforces', () => {
  const card = (
    z.toJSONSchema(creativeInputSchema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as { oneOf?: object[]; anyOf?: object[] }
  ).oneOf!.find((branch) => JSON.stringify(branch).includes('"chat_card"')) as Record<string, unknown>;
  expect(card.not).toEqual({ required: ['file_id', 'image_url'] });
  const both = creativeInputSchema.safeParse({ type: 'chat_card', title: 'T', file_id: 'f', image_url: 'https://cdn.example/a.png' });
  expect(both.success).toBe(false);
});
