/**
 * The platform's one error: the spec's `code`, a human message and the `param`
 * it is about. Transport-free: the domain throws it (re-exported from
 * domain/errors.ts) and so do the HTTP edges for their own refusals (bad JSON,
 * auth, rate limits); each code's HTTP status is decided in one table,
 * lib/http/error-codes.ts.
 */
export class DomainError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly param: string | null = null,
  ) {
    super(message);
    this.name = 'DomainError';
  }

  /** The same error about another parameter (a shared check reused under a caller's path). */
  withParam(param: string | null): DomainError {
    return new DomainError(this.code, this.message, param);
  }
}

/**
 * A request that breaks several rules at once: the first is the error (the
 * spec's object), every one is listed too, so a client fixes them in one round
 * (lib/http/errors.ts answers them as `errors`).
 */
export class InvalidRequestError extends DomainError {
  constructor(readonly all: readonly DomainError[]) {
    super(all[0].code, all[0].message, all[0].param);
  }

  override withParam(param: string | null): DomainError {
    return new DomainError(this.code, this.message, param);
  }
}

/** A rate budget as clients see it (the `X-RateLimit-*` headers). */
export interface RateBudget {
  limit: number;
  remaining: number;
  resetAt: number;
}

/**
 * `rate_limit_exceeded`, with when to retry and the budget it ran out of: the
 * one way every surface answers 429 (lib/http/errors.ts sends `Retry-After`
 * and the `X-RateLimit-*` headers from it).
 */
export class RateLimitError extends DomainError {
  constructor(
    readonly retryAfterSeconds: number,
    message = 'request was throttled',
    readonly budget?: RateBudget,
  ) {
    super('rate_limit_exceeded', message);
  }
}

/** The `X-RateLimit-*` headers of a budget: on every answer that spends one, throttled or not. */
export function rateBudgetHeaders(budget: RateBudget): Record<string, string> {
  return { 'X-RateLimit-Limit': String(budget.limit), 'X-RateLimit-Remaining': String(budget.remaining), 'X-RateLimit-Reset': String(budget.resetAt) };
}
