/**
 * The insights query parameters: one zod schema per parameter (the same
 * schemas are the OpenAPI parameters) and `parseInsightsQuery`, which applies
 * every rule of the spec's Insights section and throws its error code.
 * Transport-free: it takes the query string as a plain object of strings and
 * string arrays (`name[]` keys as sent).
 */
import { z } from 'zod';
import { DomainError, invalidValue } from '../errors';
import { MAX_WINDOWS, checkDisjoint, defaultWindow, parseTimeRange, timeRangeSchema, type Granularity, type TimeWindow } from './time-windows';

export const LEVELS = ['ad_account', 'campaign', 'ad_group', 'ad'] as const;
export type Level = (typeof LEVELS)[number];
/** The spec's metrics, then own-supply engagement (domain/insights/engagement.ts): poll votes and attributed conversions. */
export const METRICS = ['impressions', 'clicks', 'spend', 'ctr', 'cpc', 'cpm', 'poll_votes', 'conversions'] as const;
export type Metric = (typeof METRICS)[number];
export const SEGMENTS = ['source', 'country', 'device'] as const;
export type Segment = (typeof SEGMENTS)[number];
export type Source = 'own' | 'external' | 'all';
export const DEFAULT_FIELDS: Metric[] = ['impressions', 'clicks', 'spend'];
export const MAX_LIMIT = 2000;

/** Entity levels an id filter may name (`campaign.id` or `campaign_id`). */
type IdFilterLevel = 'campaign' | 'ad_group' | 'ad';

const METRIC_NAME = `(?:[A-Za-z_]+\\.)?(?:${METRICS.join('|')})`;
/** A metric, optionally behind a dotted prefix (`ad.impressions`); the prefix is ignored. */
const metricNameSchema = z.string().regex(new RegExp(`^${METRIC_NAME}$`));
const metricOf = (name: string): Metric | null => {
  const bare = /^(?:[A-Za-z_]+\.)?([A-Za-z_]+)$/.exec(name)?.[1];
  return (METRICS as readonly string[]).includes(bare ?? '') ? (bare as Metric) : null;
};

export const filterSchema = z
  .object({
    field: z.string(),
    operator: z.enum(['IN', 'GREATER_THAN', 'LESS_THAN']),
    value: z.union([z.number(), z.array(z.union([z.string(), z.number()])).min(1)]),
  })
  .strict();

export const sortSchema = z
  .object({
    field: metricNameSchema,
    direction: z.enum(['asc', 'desc']).optional(),
  })
  .strict();

/** A metric filter: IN a list of numbers, or GREATER_THAN / LESS_THAN a number. */
const metricFilterSchemas = [
  z.strictObject({ field: metricNameSchema, operator: z.literal('IN'), value: z.array(z.number()).min(1) }),
  z.strictObject({ field: metricNameSchema, operator: z.enum(['GREATER_THAN', 'LESS_THAN']), value: z.number() }),
] as const;

/**
 * The filters an endpoint of this scope accepts, as parseFilters checks them: metrics, entity ids
 * at or above the scope (`campaign.id` / `campaign_id` IN ids), and the supply (`source` IN own/external).
 */
function filterSchemaFor(scope: Level) {
  const idFields = (['campaign', 'ad_group', 'ad'] as const).filter((l) => levelRank(l) <= levelRank(scope)).flatMap((l) => [`${l}.id`, `${l}_id`]);
  const idFilter = z.strictObject({ field: z.enum(idFields as [string, ...string[]]), operator: z.literal('IN'), value: z.array(z.string()).min(1) });
  const sourceFilter = z.strictObject({ field: z.literal('source'), operator: z.literal('IN'), value: z.array(z.enum(['own', 'external'])).min(1) });
  return z.union([...metricFilterSchemas, ...(idFields.length > 0 ? [idFilter] : []), sourceFilter]);
}

/** A parameter whose values are JSON objects sent as strings; documented with their JSON shape. */
function jsonObjectParam(shape: z.ZodType, description: string) {
  const { $schema: _ignored, ...contentSchema } = z.toJSONSchema(shape, { target: 'draft-2020-12', io: 'input' }) as Record<string, unknown>;
  return z
    .array(
      z
        .string()
        .regex(/^\s*\{[\s\S]*\}\s*$/)
        .meta({ contentMediaType: 'application/json', contentSchema }),
    )
    .meta({ description });
}

/** The query parameters of the four insights endpoints, exactly as accepted. */
export const insightsQuerySchema = z.object({
  time_granularity: z.enum(['hourly', 'daily', 'monthly', 'none']).default('daily'),
  aggregation_level: z.enum(LEVELS).optional().meta({ description: 'Default: the endpoint scope; at or below it' }),
  'time_ranges[]': jsonObjectParam(timeRangeSchema, 'JSON time ranges; default a trailing 30-day window').max(MAX_WINDOWS).optional(),
  'fields[]': z
    .array(metricNameSchema)
    .optional()
    .meta({ description: `One of ${METRICS.join(', ')}, optionally behind a dotted prefix (ad.clicks); default impressions, clicks, spend` }),
  'filters[]': jsonObjectParam(filterSchema, 'JSON filters { field, operator, value }').optional(),
  'sort[]': jsonObjectParam(sortSchema, 'JSON sort keys { field, direction }, applied in order').optional(),
  'segments[]': z.array(z.enum(SEGMENTS)).max(1).optional(),
  source: z.enum(['own', 'external', 'all']).default('all'),
  limit: z.coerce.number().int().min(1).max(MAX_LIMIT).default(20),
  before: z.string().min(1).optional(),
  after: z.string().min(1).optional(),
});
type Shape = typeof insightsQuerySchema.shape;

/**
 * The query parameters as one endpoint documents them (OpenAPI): aggregation_level at or below its
 * scope, and filters as that scope accepts them. The rules between values (a time range's bounds,
 * segments with scope, supply or granularity, a source filter against `source`) stay in parseInsightsQuery.
 */
export function insightsQuerySchemaFor(scope: Level) {
  const levels = LEVELS.slice(levelRank(scope)) as [Level, ...Level[]];
  return insightsQuerySchema.extend({
    aggregation_level: z
      .enum(levels)
      .optional()
      .meta({ description: `Default: the endpoint scope (${scope}); at or below it` }),
    'filters[]': jsonObjectParam(filterSchemaFor(scope), 'JSON filters { field, operator, value }').optional(),
  });
}

/** Parameters the spec names as unsupported (400 `unsupported_parameter`). */
const UNSUPPORTED = ['includes[]', 'override_segment_group_order[]'];

export interface MetricFilter {
  metric: Metric;
  operator: 'IN' | 'GREATER_THAN' | 'LESS_THAN';
  values: number[];
}
export interface SortKey {
  metric: Metric;
  direction: 'asc' | 'desc';
}

/** A validated insights request. */
export interface InsightsQuery {
  granularity: Granularity;
  level: Level;
  windows: TimeWindow[];
  fields: Metric[];
  metricFilters: MetricFilter[];
  /** Entity-id filters by level (`campaign.id IN [...]`): they narrow the scope. */
  idFilters: Partial<Record<IdFilterLevel, string[]>>;
  sort: SortKey[];
  segment: Segment | null;
  /** The supply reported, after the `source` parameter, a source filter and the hourly rule. */
  source: Source;
  limit: number;
  before?: string;
  after?: string;
}

export type RawQuery = Record<string, string | string[] | undefined>;

const levelRank = (level: Level) => LEVELS.indexOf(level);
const asList = (value: string | string[] | undefined) => (value === undefined ? undefined : Array.isArray(value) ? value : [value]);

/** One single-valued parameter through its schema; any failure is `invalid_value` on it. */
function single<K extends keyof Shape>(raw: RawQuery, key: K): z.output<Shape[K]> {
  const value = raw[key];
  if (Array.isArray(value)) throw invalidValue(key, `${key} may be given once`);
  const parsed = insightsQuerySchema.shape[key].safeParse(value);
  if (!parsed.success) throw invalidValue(key, `${key}: ${parsed.error.issues[0].message}`);
  return parsed.data as z.output<Shape[K]>;
}

/** A cursor is a row id from an earlier page; one that cannot be is `invalid_cursor` at once. */
function cursor(raw: RawQuery, key: 'before' | 'after'): string | undefined {
  const value = raw[key];
  if (value === undefined) return undefined;
  if (Array.isArray(value) || value === '') throw new DomainError('invalid_cursor', `${key} must be a row id from an earlier page`, key);
  return value;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function parseFields(raw: RawQuery): Metric[] {
  const names = asList(raw['fields[]']);
  if (!names) return DEFAULT_FIELDS;
  return names.map((name) => {
    const metric = metricOf(name);
    if (!metric) throw new DomainError('unknown_field', `Unknown field: ${name} (fields are ${METRICS.join(', ')})`, 'fields[]');
    return metric;
  });
}

function parseSort(raw: RawQuery): SortKey[] {
  return (asList(raw['sort[]']) ?? []).map((text) => {
    const parsed = sortSchema.safeParse(parseJson(text));
    if (!parsed.success) throw invalidValue('sort[]', 'A sort key is { field: a metric, direction: asc or desc }');
    return { metric: metricOf(parsed.data.field)!, direction: parsed.data.direction ?? 'asc' };
  });
}

function parseSegments(raw: RawQuery): Segment | null {
  const values = asList(raw['segments[]']) ?? [];
  if (values.length > 1) throw new DomainError('too_many_segments', 'At most one segment may be given', 'segments[]');
  if (values.length === 0) return null;
  const [value] = values;
  if ((SEGMENTS as readonly string[]).includes(value)) return value as Segment;
  if (value === 'product') throw new DomainError('unsupported_segment', 'The product segment is not supported', 'segments[]');
  throw new DomainError('invalid_segment', `Unknown segment: ${value} (segments are ${SEGMENTS.join(', ')})`, 'segments[]');
}

interface ParsedFilters {
  metricFilters: MetricFilter[];
  idFilters: InsightsQuery['idFilters'];
  sources: Source[];
}

function parseFilters(raw: RawQuery, level: Level): ParsedFilters {
  const out: ParsedFilters = { metricFilters: [], idFilters: {}, sources: [] };
  const invalid = (message: string) => new DomainError('invalid_filter', message, 'filters[]');
  const badOperator = (field: string, allowed: string) => new DomainError('invalid_filter_operator', `${field} takes the operator ${allowed}`, 'filters[]');
  for (const text of asList(raw['filters[]']) ?? []) {
    const entry = parseJson(text);
    if (!entry || typeof entry !== 'object' || Array.isArray(entry)) throw invalid('A filter is a JSON object { field, operator, value }');
    const { field, operator, value, ...rest } = entry as Record<string, unknown>;
    if (Object.keys(rest).length > 0 || typeof field !== 'string' || typeof operator !== 'string' || value === undefined) {
      throw invalid('A filter is a JSON object { field, operator, value }');
    }
    const metric = metricOf(field);
    const idLevel = /^(campaign|ad_group|ad)(?:\.id|_id)$/.exec(field)?.[1] as IdFilterLevel | undefined;
    if (metric) {
      if (operator === 'IN') {
        if (!Array.isArray(value) || value.length === 0 || !value.every((v) => typeof v === 'number' && Number.isFinite(v)))
          throw invalid(`${field} IN needs a list of numbers`);
        out.metricFilters.push({ metric, operator, values: value as number[] });
      } else if (operator === 'GREATER_THAN' || operator === 'LESS_THAN') {
        if (typeof value !== 'number' || !Number.isFinite(value)) throw invalid(`${field} ${operator} needs a numeric value`);
        out.metricFilters.push({ metric, operator, values: [value] });
      } else {
        throw badOperator(field, 'IN, GREATER_THAN or LESS_THAN');
      }
    } else if (idLevel) {
      if (operator !== 'IN') throw badOperator(field, 'IN');
      if (!Array.isArray(value) || value.length === 0 || !value.every((v) => typeof v === 'string')) throw invalid(`${field} IN needs a list of ids`);
      if (levelRank(idLevel) > levelRank(level)) throw invalid(`${field} is finer than aggregation_level ${level}`);
      // Several filters on one level narrow together: an id must be in every list.
      const previous = out.idFilters[idLevel];
      const ids = [...new Set(value.map((id) => id.toLowerCase()))];
      out.idFilters[idLevel] = previous ? previous.filter((id) => ids.includes(id)) : ids;
    } else if (field === 'source') {
      if (operator !== 'IN') throw badOperator(field, 'IN');
      if (!Array.isArray(value) || value.length === 0 || !value.every((v) => v === 'own' || v === 'external'))
        throw invalid('source IN needs a list of own and/or external');
      out.sources.push(new Set(value).size === 2 ? 'all' : (value[0] as Source));
    } else {
      throw invalid(`Unknown filter field: ${field}`);
    }
  }
  return out;
}

/** The supply to report: the `source` parameter, narrowed by source filters that must agree with it. */
function effectiveSource(raw: RawQuery, parameter: Source, filtered: Source[]): Source {
  const given = raw.source !== undefined;
  let source = parameter;
  for (const fromFilter of filtered) {
    if (given && fromFilter !== parameter)
      throw new DomainError('invalid_filter', `The source filter (${fromFilter}) disagrees with source=${parameter}`, 'filters[]');
    if (!given && source !== 'all' && fromFilter !== source) throw new DomainError('invalid_filter', 'Source filters disagree with each other', 'filters[]');
    source = fromFilter;
  }
  return source;
}

/**
 * Validates a request against the spec's rules, in this order: unsupported
 * parameters (`includes[]`, `override_segment_group_order[]`), single-valued parameters, fields, time ranges, filters, sort,
 * segments, cursors, then the rules that combine them (supply, segments).
 */
export function parseInsightsQuery(raw: RawQuery, scope: Level, now = Math.floor(Date.now() / 1000)): InsightsQuery {
  // The two parameters the spec names are refused; any other undocumented one is ignored, as on every /v1 route.
  for (const key of Object.keys(raw)) {
    if (UNSUPPORTED.includes(key) || UNSUPPORTED.includes(`${key}[]`)) throw new DomainError('unsupported_parameter', `${key} is not supported`, key);
  }
  const granularity = single(raw, 'time_granularity');
  const level = single(raw, 'aggregation_level') ?? scope;
  if (levelRank(level) < levelRank(scope)) {
    throw new DomainError('aggregation_level_too_high', `aggregation_level ${level} is above this endpoint's scope (${scope})`, 'aggregation_level');
  }
  const sourceParameter = single(raw, 'source');
  // Digits only: the schema's integer, without what number coercion would let through ("5.0", " 5", "0x10").
  if (typeof raw.limit === 'string' && !/^\d{1,4}$/.test(raw.limit)) throw invalidValue('limit', `limit must be an integer from 1 to ${MAX_LIMIT}`);
  const limit = single(raw, 'limit');
  const fields = parseFields(raw);

  const hourly = granularity === 'hourly';
  const ranges = asList(raw['time_ranges[]']);
  if (ranges && ranges.length > MAX_WINDOWS) throw new DomainError('invalid_time_range', `At most ${MAX_WINDOWS} time ranges`, 'time_ranges[]');
  const windows = ranges && ranges.length > 0 ? ranges.map((text) => parseTimeRange(text, 'time_ranges[]', hourly)) : [defaultWindow(now, hourly)];
  checkDisjoint(windows, 'time_ranges[]');

  const filters = parseFilters(raw, level);
  const sort = parseSort(raw);
  const segment = parseSegments(raw);

  const before = cursor(raw, 'before');
  const after = cursor(raw, 'after');
  if (before !== undefined && after !== undefined) throw new DomainError('invalid_cursor', 'before and after are mutually exclusive', 'before');

  const source = effectiveSource(raw, sourceParameter, filters.sources);
  if (source === 'external' && hourly) {
    throw new DomainError('hourly_unsupported_for_external_source', 'External supply is reported daily only; use daily, monthly or none', 'source');
  }
  if (segment === 'country' || segment === 'device') {
    if (scope !== 'ad_group' && scope !== 'ad')
      throw new DomainError('unsupported_segment', `The ${segment} segment is available on ad group and ad insights only`, 'segments[]');
    if (Object.keys(filters.idFilters).length > 0)
      throw new DomainError('unsupported_segment', `The ${segment} segment cannot be combined with an entity-id filter`, 'segments[]');
    if (source === 'external') throw new DomainError('segment_source_unsupported', `The ${segment} segment covers own supply only`, 'segments[]');
    if (granularity === 'hourly' || granularity === 'monthly') {
      throw new DomainError('segment_granularity_unsupported', `The ${segment} segment needs time_granularity daily or none`, 'time_granularity');
    }
    if (windows.length > 1) throw new DomainError('invalid_time_range', `The ${segment} segment takes a single time range`, 'time_ranges[]');
  }

  return {
    granularity,
    level,
    windows,
    fields,
    metricFilters: filters.metricFilters,
    idFilters: filters.idFilters,
    sort,
    segment,
    // Combined hourly requests silently report own supply only; so do the
    // country and device segments (their rollup has own supply only).
    source: source === 'all' && (hourly || segment === 'country' || segment === 'device') ? 'own' : source,
    limit,
    before,
    after,
  };
}
