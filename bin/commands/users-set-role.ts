// `rally users set-role --email E --role admin|user`: changes a user's platform role (bootstrapping
// administrators). Audited as the CLI; refuses to demote the last active administrator; every API
// process learns of the change at once through rally_user_changed.
import { parseArgs } from 'node:util';
import type { DatabasePool } from 'slonik';
import { findAdminUserByEmail, presentAdminUser } from '../../core/users/admin-queries.ts';
import { setUserRole } from '../../core/users/suspension.ts';
import { DomainError } from '../../core/errors/domain-error.ts';
import { CommandError } from './command-error.ts';

export async function setRole(db: DatabasePool, args: string[]) {
  const { values } = parseArgs({ args, options: { email: { type: 'string' }, role: { type: 'string' } }, strict: true });
  if (!values.email || (values.role !== 'admin' && values.role !== 'user')) throw new CommandError('users set-role needs --email E --role admin|user');
  const user = await findAdminUserByEmail(db, values.email);
  if (!user) throw new CommandError(`no user has the email ${values.email}`);
  try {
    const changed = await setUserRole(db, user.id, values.role, { actorType: 'cli', actorId: null, credential: 'cli', requestId: null });
    return presentAdminUser(changed);
  } catch (error) {
    if (error instanceof DomainError) throw new CommandError(error.message);
    throw error;
  }
}
