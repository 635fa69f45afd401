// Database constraints that a client's request can break, and what each means in the domain. One
// static table, read by the API and the worker alike; a constraint violation not named here stays
// an internal error, because it means our own code let bad data through.
import {
  CheckIntegrityConstraintViolationError,
  ForeignKeyIntegrityConstraintViolationError,
  NotNullIntegrityConstraintViolationError,
  UniqueIntegrityConstraintViolationError,
} from 'slonik';
import { Conflict, DomainError, NotFound, invalidField } from './domain-error.ts';

const ENDPOINT_GONE = 'There is no such webhook endpoint: it was deleted.';

const CONSTRAINT_ERRORS: Record<string, (cause: unknown) => DomainError> = {
  petitions_category_id_fkey: () => invalidField('categoryId', 'unknown_category', 'There is no category with this id.'),
  signatures_one_per_user: () => new Conflict('You have already signed this petition.', { code: 'already_signed' }),
  petitions_tags_limit: () => invalidField('tags', 'tag_limit_exceeded', 'A petition has at most 10 tags.'),
  organizations_name_unique: () =>
    new Conflict('An organization with this name already exists (names are compared case-insensitively).', { code: 'organization_name_taken' }),
  organizations_slug_unique: () => new Conflict('An organization with this slug already exists; choose a different name.', { code: 'organization_slug_taken' }),
  organizations_name_length: () => invalidField('name', 'too_small', 'The name needs 2 to 100 characters besides surrounding spaces.'),
  organization_members_one_per_user: () => new Conflict('This user is already a member of the organization.', { code: 'already_member' }),
  organization_invitations_one_open: () => new Conflict('This address already has an open invitation to the organization.', { code: 'invitation_pending' }),
  petitions_org_id_fkey: () => invalidField('orgId', 'unknown_organization', 'There is no organization with this id.'),
  account_exports_one_running: () => new Conflict('An export of your data is still running; its link is emailed when it is ready.', { code: 'export_running' }),
  reports_one_open_per_reporter: () => new Conflict('You already reported this, and your report is still open.', { code: 'already_reported' }),
  // A request under a webhook endpoint that was deleted while it ran (a replay, a redelivery).
  webhook_deliveries_endpoint_id_fkey: () => new NotFound(ENDPOINT_GONE),
  webhook_replay_requests_endpoint_id_fkey: () => new NotFound(ENDPOINT_GONE),
};

/** The names the table maps, for the test that each is a constraint or unique index of the schema. */
export const MAPPED_CONSTRAINTS: readonly string[] = Object.keys(CONSTRAINT_ERRORS);

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

/** The domain error a constraint violation stands for, or undefined when it is not a client's doing. */
export function domainErrorOfConstraint(error: unknown): DomainError | undefined {
  const constraint = constraintOf(error);
  const toError = constraint ? CONSTRAINT_ERRORS[constraint] : undefined;
  return toError?.(error);
}
