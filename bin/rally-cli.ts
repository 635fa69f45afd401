// `npx rally <command>`: the operator's command line. Each command prints JSON on stdout, explains
// failures on stderr and exits non-zero when it could not do what was asked.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfigOrExit, type Config } from '../platform/config.ts';
import { createDatabasePool } from '../db/pool.ts';
import { DEFAULT_EMBEDDED_POSTGRES_PORT, EMBEDDED_DATABASE_NAME } from '../scripts/lib/embedded-postgres.ts';
import { CommandError } from './commands/command-error.ts';
import { createLoadtestUsers } from './commands/loadtest-users.ts';
import { createUser } from './commands/users-create.ts';
import { runOAuthClientsCommand } from './commands/oauth-clients.ts';
import { setOrganizationTier } from './commands/orgs-set-tier.ts';
import { setRole } from './commands/users-set-role.ts';
import { LISTEN_USAGE, listenForWebhooks } from './commands/webhooks-listen.ts';

const USAGE = `usage:
  rally users create --email E --password P [--name N] [--admin]
  rally users set-role --email E --role admin|user
  rally loadtest users --count N
  rally orgs set-tier --org SLUG --tier free|pro|enterprise
  rally oauth-clients create --name N --redirect-uri URI [--redirect-uri URI2] [--scopes "…"] [--confidential] [--owner-email E]
  rally oauth-clients list
  rally oauth-clients delete --client-id ID
  ${LISTEN_USAGE}`;

/** DATABASE_URL, or the embedded PostgreSQL that `npm start` runs (it must be running). */
function databaseUrlFor(config: Config): string {
  if (config.databaseUrl) return config.databaseUrl;
  const passwordFile = path.join(config.dataDir, 'postgres.password');
  if (!existsSync(passwordFile)) throw new CommandError('set DATABASE_URL, or run `npm start` first so the embedded PostgreSQL exists');
  const password = encodeURIComponent(readFileSync(passwordFile, 'utf8').trim());
  return `postgres://postgres:${password}@127.0.0.1:${DEFAULT_EMBEDDED_POSTGRES_PORT}/${EMBEDDED_DATABASE_NAME}`;
}

async function main(argv: string[]): Promise<void> {
  const [group, action, ...rest] = argv;
  // Through the API, which may be another machine's: neither this machine's settings nor its database.
  if (group === 'webhooks' && action === 'listen') return listenForWebhooks(rest, (line) => process.stdout.write(`${JSON.stringify(line)}\n`));
  const config = loadConfigOrExit();
  const command = `${group ?? ''} ${action ?? ''}`;
  const known =
    command === 'users create' || command === 'users set-role' || command === 'loadtest users' || command === 'orgs set-tier' || group === 'oauth-clients';
  if (!known) throw new CommandError(USAGE);
  const db = await createDatabasePool(databaseUrlFor(config), { maximumPoolSize: 4 });
  try {
    if (group === 'oauth-clients') {
      process.stdout.write(`${JSON.stringify(await runOAuthClientsCommand(db, action, rest, config.identity.accessTokenTtlMs))}\n`);
    } else if (command === 'users create') {
      process.stdout.write(`${JSON.stringify(await createUser(db, config, rest))}\n`);
    } else if (command === 'orgs set-tier') {
      process.stdout.write(`${JSON.stringify(await setOrganizationTier(db, rest))}\n`);
    } else if (command === 'users set-role') {
      process.stdout.write(`${JSON.stringify(await setRole(db, rest))}\n`);
    } else {
      await createLoadtestUsers(db, config, rest, (line) => process.stdout.write(`${line}\n`));
    }
  } finally {
    await db.end();
  }
}

try {
  await main(process.argv.slice(2));
} catch (error) {
  const known = error instanceof CommandError || (error instanceof Error && error.name === 'IdentityAccountError');
  process.stderr.write(`rally: ${known ? (error as Error).message : (error as Error).stack}\n`);
  process.exit(known ? 2 : 1);
}
