/**
 * Errors of the domain: `DomainError` (code, message, param; lib/errors.ts) and
 * shorthands for the codes many services use. The HTTP status of each code is
 * decided at the edge (lib/http/error-codes.ts), never here.
 */
import { DomainError } from '../lib/errors';

export { DomainError };

export const required = (param: string, message = `${param} is required`) => new DomainError('required', message, param);
export const invalidValue = (param: string | null, message: string) => new DomainError('invalid_value', message, param);
export const notFound = (what: string, param: string | null = null) => new DomainError('not_found', `No such ${what}`, param);
