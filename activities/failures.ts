// How the domain's errors leave an activity. Temporal retries whatever an activity throws unless it is a non-retryable ApplicationFailure, so this one table
// decides: a failure the input itself causes (not found, conflict, invalid…) will fail the same way every time and is final; a missing dependency (unavailable,
// rate limited) is worth retrying. Anything that is not a domain error (a lost connection, a bug) stays retryable, as Temporal treats it.
import { ApplicationFailure } from '@temporalio/activity';
import { DomainError, type DomainErrorKind } from '../core/errors/domain-error.ts';

const RETRYABLE: Record<DomainErrorKind, boolean> = {
  invalid: false,
  'invalid-cursor': false,
  unauthenticated: false,
  forbidden: false,
  'not-found': false,
  conflict: false,
  gone: false,
  'too-large': false,
  'limit-reached': false,
  'payment-required': false,
  'rate-limited': true,
  unavailable: true,
};

/**
 * Runs a domain operation; a DomainError leaves it as an ApplicationFailure. `typeOf` names the
 * failure type per domain code where a workflow reads it (the names of core/vocabulary.ts).
 */
export async function asActivity<T>(operation: () => Promise<T>, typeOf: Record<string, string> = {}): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    throw ApplicationFailure.create({
      type: typeOf[error.code] ?? `DomainError.${error.code}`,
      message: error.message,
      nonRetryable: !RETRYABLE[error.kind],
      cause: error,
    });
  }
}
