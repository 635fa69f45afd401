// Database failures that say nothing about the request that met them (PostgreSQL unreachable, restarting or out of connections, or a lost race that would
// succeed if tried again) become `unavailable` domain errors with a Retry-After: the API answers 503 instead of 500 (a 500 says our code is wrong), and the
// worker's activities retry them. SQLSTATEs: https://www.postgresql.org/docs/current/errcodes-appendix.html
import {
  BackendTerminatedError,
  BackendTerminatedUnexpectedlyError,
  ConnectionError,
  IdleTransactionTimeoutError,
  StatementCancelledError,
  StatementTimeoutError,
} from 'slonik';
import { Unavailable, type DomainError } from './domain-error.ts';

type Failure = 'outage' | 'contention';

const FAILURE_OF_SQLSTATE: Record<string, Failure> = {
  '40001': 'contention', // serialization_failure
  '40P01': 'contention', // deadlock_detected
  '55P03': 'contention', // lock_not_available
  '57014': 'contention', // query_canceled (statement_timeout)
  '53300': 'outage', // too_many_connections
  '57P01': 'outage', // admin_shutdown
  '57P02': 'outage', // crash_shutdown
  '57P03': 'outage', // cannot_connect_now
};

const ANSWERS: Record<Failure, { detail: string; code: string; retryAfterSeconds: number }> = {
  outage: { detail: 'The database is unreachable or restarting. Retry later.', code: 'database_unavailable', retryAfterSeconds: 5 },
  contention: { detail: 'The database is busy and gave up on this request. Retry it.', code: 'database_busy', retryAfterSeconds: 1 },
};

function sqlStateOf(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 4; current = (current as { cause?: unknown }).cause, depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

function failureOf(error: unknown): Failure | undefined {
  if (error instanceof ConnectionError || error instanceof BackendTerminatedError || error instanceof BackendTerminatedUnexpectedlyError) return 'outage';
  if (error instanceof StatementTimeoutError || error instanceof StatementCancelledError || error instanceof IdleTransactionTimeoutError) return 'contention';
  const state = sqlStateOf(error);
  if (state === undefined) return undefined;
  // Class 08: connection exceptions.
  return state.startsWith('08') ? 'outage' : FAILURE_OF_SQLSTATE[state];
}

/** The `unavailable` error a transient database failure stands for; undefined for anything else. */
export function transientDatabaseFailure(error: unknown): DomainError | undefined {
  const failure = failureOf(error);
  if (!failure) return undefined;
  const { detail, code, retryAfterSeconds } = ANSWERS[failure];
  return new Unavailable(detail, { code, retryAfterSeconds, cause: error });
}
