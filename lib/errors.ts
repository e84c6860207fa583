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

/** `rate_limit_exceeded`, with when to retry: the edges send it as `Retry-After`. */
export class RateLimitError extends DomainError {
  constructor(readonly retryAfterSeconds: number, message = 'request was throttled') {
    super('rate_limit_exceeded', message);
  }
}
