// `rally users create`: an account in the embedded identity provider (argon2id password) and the
// Rally user linked to it, so the person can log in at once.
import { parseArgs } from 'node:util';
import type { DatabasePool } from 'slonik';
import { embeddedIssuer, type Config } from '../../platform/config.ts';
import { createIdentityAccount } from '../../identity-provider/accounts.ts';
import { upsertUserFromClaims } from '../../core/users/queries.ts';
import { toUser } from '../../api/users/schemas.ts';
import { CommandError } from './command-error.ts';

export async function createUser(db: DatabasePool, config: Config, args: string[]) {
  const { values } = parseArgs({
    args,
    options: { email: { type: 'string' }, password: { type: 'string' }, name: { type: 'string' }, admin: { type: 'boolean', default: false } },
    strict: true,
  });
  if (!values.email || !values.password) throw new CommandError('users create needs --email and --password');
  if (config.identity.issuer) {
    throw new CommandError(
      `accounts live in your identity provider (${config.identity.issuer}): create the account there; Rally creates the user at first login`,
    );
  }
  const displayName = values.name ?? values.email.split('@')[0] ?? 'user';
  return db.transaction(async (tx) => {
    const subject = await createIdentityAccount(tx, { email: values.email!, password: values.password!, displayName, emailVerified: true });
    const user = await upsertUserFromClaims(
      tx,
      { issuer: embeddedIssuer(config), subject, email: values.email!, displayName, emailVerified: true },
      values.admin ? 'admin' : 'user',
    );
    return toUser(user);
  });
}
