// `rally oauth-clients create|list|delete`: the operator registers third-party apps. A confidential
// client's secret is printed once, here; only its hash is stored.
import { parseArgs } from 'node:util';
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { Invalid } from '../../core/errors/domain-error.ts';
import { createClient, deleteClient, listClients, presentClient } from '../../core/oauth/clients.ts';
import { CommandError } from './command-error.ts';

async function ownerIdOf(db: DatabasePool, email: string | undefined): Promise<string | undefined> {
  if (email === undefined) return undefined;
  const ids = await db.anyFirst(sql.type(z.object({ id: z.string() }))`SELECT id FROM users WHERE lower(email) = lower(${email}) LIMIT 2`);
  if (ids.length !== 1) throw new CommandError(`--owner-email: ${ids.length === 0 ? 'no' : 'more than one'} user has the e-mail ${email}`);
  return ids[0];
}

async function create(db: DatabasePool, args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      name: { type: 'string' },
      'redirect-uri': { type: 'string', multiple: true },
      scopes: { type: 'string' },
      confidential: { type: 'boolean', default: false },
      'owner-email': { type: 'string' },
    },
    strict: true,
  });
  if (!values.name || !values['redirect-uri']?.length) throw new CommandError('oauth-clients create needs --name and at least one --redirect-uri');
  try {
    const { client, secret } = await createClient(db, {
      name: values.name,
      redirectUris: values['redirect-uri'],
      scopes: values.scopes,
      confidential: values.confidential ?? false,
      ownerUserId: await ownerIdOf(db, values['owner-email']),
    });
    // client_secret right after client_id, as the conventions print it.
    const { client_id: clientId, ...rest } = presentClient(client);
    return { client_id: clientId, ...(secret ? { client_secret: secret } : {}), ...rest };
  } catch (error) {
    if (error instanceof Invalid) throw new CommandError(error.message);
    throw error;
  }
}

/** `accessTokenTtlMs`: how long a deleted client's tokens must stay refused (RALLY_ACCESS_TOKEN_TTL). */
export async function runOAuthClientsCommand(db: DatabasePool, action: string | undefined, args: string[], accessTokenTtlMs: number): Promise<unknown> {
  if (action === 'create') return create(db, args);
  if (action === 'list') return (await listClients(db)).map(presentClient);
  if (action === 'delete') {
    const { values, positionals } = parseArgs({ args, options: { 'client-id': { type: 'string' } }, allowPositionals: true, strict: true });
    const clientId = values['client-id'] ?? positionals[0];
    if (!clientId) throw new CommandError('oauth-clients delete needs --client-id ID');
    if (!(await deleteClient(db, clientId, accessTokenTtlMs))) throw new CommandError(`there is no OAuth client ${clientId}`);
    return { client_id: clientId, deleted: true };
  }
  throw new CommandError('oauth-clients takes create, list or delete');
}
