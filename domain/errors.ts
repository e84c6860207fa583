/**
 * The one error the domain throws: the spec's `code`, a human message and the
 * `param` it is about. It knows nothing of HTTP; the edge decides each code's
 * status in one table (api/http/error-codes.ts).
 */
export class DomainError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly param: string | null = null,
    /** Extra detail an edge may surface (Retry-After seconds, for example). */
    readonly details: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'DomainError';
  }

  /** The same error about another parameter (a shared check reused under a caller's path). */
  withParam(param: string | null): DomainError {
    return new DomainError(this.code, this.message, param, this.details);
  }
}

// Shorthands for the codes used across many services.
export const required = (param: string, message = `${param} is required`) => new DomainError('required', message, param);
export const invalidValue = (param: string | null, message: string) => new DomainError('invalid_value', message, param);
export const notFound = (what: string, param: string | null = null) => new DomainError('not_found', `No such ${what}`, param);
