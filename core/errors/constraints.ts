// The database-error layer: constraint names become client answers. A resource registers what its
// constraints mean (`registerConstraint('petition_signatures_unique_signer', 'conflict', '...')`);
// any constraint violation not registered stays a 500, because it means our code let bad data through.
import {
  CheckIntegrityConstraintViolationError,
  ForeignKeyIntegrityConstraintViolationError,
  UniqueIntegrityConstraintViolationError,
  NotNullIntegrityConstraintViolationError,
} from 'slonik';
import { RallyError, type ProblemSlug } from '../../api/http/problem.ts';

type ConstraintAnswer = { slug: ProblemSlug; detail: string; code?: string; field?: string };

const constraintAnswers = new Map<string, ConstraintAnswer>();

export function registerConstraint(name: string, answer: ConstraintAnswer): void {
  constraintAnswers.set(name, answer);
}

function constraintOf(error: unknown): string | undefined {
  if (
    error instanceof UniqueIntegrityConstraintViolationError ||
    error instanceof ForeignKeyIntegrityConstraintViolationError ||
    error instanceof CheckIntegrityConstraintViolationError ||
    error instanceof NotNullIntegrityConstraintViolationError
  ) {
    return error.constraint ?? undefined;
  }
  // Raw `pg` errors (migrations, LISTEN connections) carry the same field.
  const pgError = error as { code?: unknown; constraint?: unknown };
  if (typeof pgError?.code === 'string' && pgError.code.startsWith('23') && typeof pgError.constraint === 'string') {
    return pgError.constraint;
  }
  return undefined;
}

export function mapDatabaseError(error: unknown): RallyError | undefined {
  const constraint = constraintOf(error);
  if (!constraint) return undefined;
  const answer = constraintAnswers.get(constraint);
  if (!answer) return undefined;
  const errors =
    answer.slug === 'validation-failed' && answer.field
      ? [{ field: answer.field, code: answer.code ?? 'invalid', message: answer.detail }]
      : undefined;
  return new RallyError(answer.slug, answer.detail, { code: answer.code, errors, cause: error });
}
