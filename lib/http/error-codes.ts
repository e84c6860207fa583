/**
 * The one table that decides each error code's HTTP status (and so its error
 * `type`). The domain throws codes (domain/errors.ts); the edges of both
 * services answer with this table; the OpenAPI document lists the same codes
 * per status; the platform envelope uses it too. A code missing here is a bug:
 * it answers 500 and is logged (test/errors.test.ts checks every code
 * thrown in the source is listed).
 */
export interface ErrorCodeInfo {
  status: number;
  when: string;
}

export const ERROR_CODES = {
  // 400: the spec's table
  required: { status: 400, when: 'a required field is missing or empty' },
  invalid_value: { status: 400, when: 'wrong type or out of range' },
  string_too_long: { status: 400, when: 'a string over its maximum length' },
  poll_cannot_be_ai: { status: 400, when: 'auto_generate on a poll' },
  use_status_action: { status: 400, when: 'status sent in a campaign update body' },
  billing_not_configured: { status: 400, when: 'no default card on create' },
  campaign_not_approved: { status: 400, when: 'activation while the campaign is not approved' },
  campaign_not_running: { status: 400, when: 'campaign pause while not active (or completed or blocked)' },
  cannot_archive: { status: 400, when: 'campaign archive while not active or paused' },
  no_ad_account: { status: 400, when: 'no ad_account_id and zero ad accounts' },
  campaign_pending_status_locked: { status: 400, when: 'ad group status action while the campaign is pending approval' },
  campaign_terminal: { status: 400, when: 'status action while the campaign is archived, rejected, completed or blocked' },
  invalid_file: { status: 400, when: 'upload bytes missing, unreadable or not a decodable image' },
  file_too_large: { status: 400, when: 'image over 5 MB' },
  unsupported_mimetype: { status: 400, when: 'image not PNG, JPEG or WebP' },
  invalid_image_url: { status: 400, when: 'image_url empty, not absolute http(s), unresolvable or not public' },
  image_fetch_failed: { status: 400, when: 'fetching image_url failed' },
  too_many_redirects: { status: 400, when: 'image_url answered with a redirect' },
  // 400: the spec's insights table (document 2)
  aggregation_level_too_high: { status: 400, when: 'insights aggregation_level above the endpoint scope' },
  invalid_time_range: {
    status: 400,
    when: 'insights time range malformed, end not after start, unknown time zone, overlapping, or several with an audience segment',
  },
  range_too_wide: { status: 400, when: 'insights time window over 366 days' },
  hourly_range_too_wide: { status: 400, when: 'hourly insights window over 25 hours' },
  report_too_large: {
    status: 400,
    when: "a report export's report over the insights row cap (20,000 decoded rows): the export fails with it; narrow it or export it in parts",
  },
  hourly_unsupported_for_external_source: { status: 400, when: 'insights source=external with hourly granularity' },
  unknown_field: { status: 400, when: 'unknown metric in insights fields[]' },
  invalid_filter: { status: 400, when: 'insights filter malformed, unknown field, id finer than the level, or source disagreeing with source' },
  invalid_filter_operator: { status: 400, when: 'insights filter operator not allowed for the field' },
  too_many_segments: { status: 400, when: 'more than one insights segment' },
  invalid_segment: { status: 400, when: 'unrecognized insights segment' },
  unsupported_segment: { status: 400, when: 'product, or country/device outside ad-group/ad scope or with an entity-id filter' },
  segment_source_unsupported: { status: 400, when: 'country/device segment with source=external' },
  segment_granularity_unsupported: { status: 400, when: 'country/device segment with hourly or monthly granularity' },
  invalid_cursor: { status: 400, when: 'insights before and after together, or an unknown cursor' },
  unsupported_parameter: { status: 400, when: 'insights includes[] or override_segment_group_order[]' },
  // Ours, at the HTTP edge
  invalid_json: { status: 400, when: 'the body is not valid JSON' },
  webhook_endpoint_limit: { status: 400, when: 'the organization already has the most webhook endpoints it may have (5)' },
  // 401-404
  auth_required: { status: 401, when: 'no Authorization header' },
  invalid_api_key: { status: 401, when: 'malformed, unknown, expired or revoked key' },
  invalid_session: { status: 401, when: 'unknown or expired dashboard session, or not a session token' },
  card_declined: { status: 402, when: 'deposit charge declined; nothing is created' },
  insufficient_role: { status: 403, when: 'the member role may not do this' },
  csrf_failed: { status: 403, when: "a dashboard state change without its session's CSRF token" },
  not_found: { status: 404, when: 'unknown, or owned by another organization' },
  method_not_allowed: { status: 405, when: 'the path exists but not with this method (see Allow)' },
  idempotency_key_reused: { status: 409, when: 'same Idempotency-Key with a different body' },
  name_conflict: { status: 409, when: 'a campaign with that name already exists' },
  review_closed: { status: 409, when: 'a review verdict for a campaign no longer in review' },
  body_too_large: { status: 413, when: 'the body is larger than allowed' },
  unsupported_media_type: { status: 415, when: 'a body that is not application/json' },
  rate_limit_exceeded: { status: 429, when: 'throttled (see Retry-After)' },
  internal_error: { status: 500, when: 'an unexpected failure; it has been logged' },
  payment_provider_error: { status: 502, when: 'payment provider unavailable; nothing created, retry later' },
  analytics_timeout: { status: 504, when: 'an insights query ran past its budget; narrow scope, window or granularity and retry' },
  request_timeout: { status: 503, when: 'the operation did not finish in time; retry with the same Idempotency-Key' },
} satisfies Record<string, ErrorCodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The four error types of the spec's error object, decided by the status. */
export type ErrorType = 'invalid_request_error' | 'authentication_error' | 'rate_limit_error' | 'server_error';

export function errorTypeOf(status: number): ErrorType {
  if (status === 401) return 'authentication_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

export function isKnownCode(code: string): code is ErrorCode {
  return Object.prototype.hasOwnProperty.call(ERROR_CODES, code);
}

/** The codes answered with `status`, for the OpenAPI document. */
export function codesWithStatus(status: number): ErrorCode[] {
  return (Object.keys(ERROR_CODES) as ErrorCode[]).filter((code) => ERROR_CODES[code].status === status);
}
