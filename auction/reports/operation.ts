import type { IncomingMessage } from 'node:http';
import type { Request, RequestHandler } from 'express';
import { z } from 'zod';
import { config } from '../../lib/config';
import { rateBudgetHeaders } from '../../lib/errors';
import { defineOperation, type Operation } from '../../lib/http/operations';
import { consume, throttled } from '../../domain/rate-limits/sliding-window';
import type { PublisherRecord } from '../../domain/publishers';
import { publisherReport, reportQuerySchema, REPORT_GROUPS, type ReportDeps } from './report';

/**
 * GET /v1/reports: the calling publisher's own report, declared like the ad
 * request (auction/openapi.ts) so that the route and the OpenAPI document come
 * from one declaration. The publisher key is checked before the query is, then
 * its hourly budget of reports (RATE_LIMIT_PUBLISHER_REPORTS_PER_HOUR, counted
 * in PostgreSQL so every auction process shares it; 429 past it).
 */
const count = z.int().min(0);

const metricsShape = {
  requests: count.describe('Ad requests (auctions run), by auction time'),
  filled: count.describe('Auctions that returned an ad'),
  fill_rate: z.number().min(0).max(1).describe('filled / requests (0 without requests), 6 decimals'),
  no_fill: z.record(z.string(), count).describe('Requests without an ad, by no_fill_reason (only reasons that occurred)'),
  impressions: count.describe('Impressions tracked, by event time'),
  clicks: count.describe('Clicks tracked, by event time'),
  revenue: z.number().min(0).describe('USD: revenue_micros / 1,000,000'),
  revenue_micros: count.describe('Micros of USD: the spend charged for in-house impressions and clicks plus the cleared prices of DSP impressions'),
  ecpm: z.number().min(0).describe('USD per 1,000 impressions (0 without impressions), 6 decimals'),
  invalid_impressions: count.describe('Impressions recorded as invalid traffic (not counted in impressions, no revenue), by event time'),
  invalid_clicks: count.describe('Clicks recorded as invalid traffic (not counted in clicks, no revenue), by event time'),
  invalid_traffic: z
    .record(z.string(), count)
    .describe('Invalid impressions and clicks by reason: bot_user_agent, user_agent_mismatch, network_mismatch, burst (only reasons that occurred)'),
};

const groupShape = {
  source: z.string().nullable().optional().describe('group_by=source: `inhouse` or the DSP id; null for requests without a fill'),
  source_name: z.string().nullable().optional().describe("group_by=source: `inhouse` or the DSP's name"),
  format: z.string().nullable().optional().describe('group_by=format: the served format; null for requests without a fill'),
  country: z.string().nullable().optional().describe("group_by=country: the request's country_code"),
  category: z
    .string()
    .nullable()
    .optional()
    .describe(
      "group_by=category: the conversation's first IAB Content Taxonomy 3.0 tier-1 id (cattax 7); null when it had none, or for a delivery whose auction is unknown",
    ),
  category_name: z.string().nullable().optional().describe("group_by=category: the category's name in the taxonomy (`Automotive`)"),
  language: z
    .string()
    .nullable()
    .optional()
    .describe(
      "group_by=language: the conversation's language (ISO 639-1) as sent to DSPs; null when none was told, or for a delivery whose auction is unknown",
    ),
};

const rowSchema = z.object({
  date: z.iso.date().optional().describe('daily: the UTC day'),
  hour: z.string().optional().describe('hourly: the UTC hour, ISO 8601 (`2026-11-25T21:00:00Z`)'),
  ...groupShape,
  ...metricsShape,
});

export const reportResponseSchema = z.object({
  publisher_id: z.string(),
  test: z.boolean().describe('A test publisher: its traffic is in this report only and never billed'),
  start_date: z.iso.date(),
  end_date: z.iso.date(),
  granularity: z.enum(['daily', 'hourly']),
  group_by: z.enum(REPORT_GROUPS).nullable(),
  time_zone: z.literal('UTC'),
  currency: z.literal('USD'),
  data: z.array(rowSchema).describe('Time buckets in order (every bucket of the range when ungrouped; with group_by, those with traffic), groups by key'),
  totals: z.object(metricsShape),
});

type PublisherRequest = Request & { reportPublisher?: PublisherRecord };

export function reportsOperation(deps: { authenticate(req: IncomingMessage): PublisherRecord; report: ReportDeps }): Operation {
  const authenticate: RequestHandler = (req, _res, next) => {
    try {
      (req as PublisherRequest).reportPublisher = deps.authenticate(req);
      next();
    } catch (err) {
      next(err);
    }
  };
  const rateLimit: RequestHandler = async (req, res, next) => {
    const verdict = await consume(
      deps.report.db,
      `publisher_reports:${(req as PublisherRequest).reportPublisher!.id}`,
      config.publisherReports.perPublisherPerHour,
    );
    if (!verdict.allowed) throw throttled(verdict, 'Too many reports for this publisher key; retry after the Retry-After seconds');
    res.set(rateBudgetHeaders(verdict));
    next();
  };
  return defineOperation({
    id: 'getPublisherReport',
    method: 'get',
    path: '/v1/reports',
    tag: 'Auction',
    summary: "The calling publisher's report: requests, fill, no-fill reasons, impressions, clicks, revenue and eCPM per UTC day or hour",
    auth: 'publisherKey',
    query: reportQuerySchema,
    errors: ['required', 'invalid_value', 'rate_limit_exceeded', 'analytics_timeout'],
    before: [authenticate, rateLimit],
    success: { status: 200, description: 'The report', schema: reportResponseSchema },
    handle: async ({ query }, req) => {
      const publisher = (req as PublisherRequest).reportPublisher!;
      return publisherReport(deps.report, { publicId: publisher.publicId, test: publisher.test }, query);
    },
  });
}
