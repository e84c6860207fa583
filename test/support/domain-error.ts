import { DomainError } from '../../domain/errors';

/** The DomainError a promise rejects with (the test fails if it resolves, or rejects with anything else). */
export async function domainErrorOf(promise: Promise<unknown>): Promise<DomainError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  return err as DomainError;
}
