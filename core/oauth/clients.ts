// Registered OAuth apps. The operator registers them (`npx rally oauth-clients create`); a
// confidential client's secret carries 32 random bytes, is shown once and only its SHA-256 is kept.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { Invalid } from '../errors/domain-error.ts';
import { OAUTH_SCOPES, type OAuthScope } from '../vocabulary.ts';
import { endClientGrants, listAsRevoked } from './grants.ts';

export const DEFAULT_CLIENT_SCOPES: readonly OAuthScope[] = ['read:petitions', 'read:signatures', 'read:profile'];
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export const OAuthClientRow = z.object({
  client_id: z.string(),
  name: z.string(),
  redirect_uris: z.array(z.string()),
  scopes: z.array(z.string()),
  confidential: z.boolean(),
  secret_hash: z.instanceof(Buffer).nullable(),
  owner_user_id: z.string().nullable(),
  registered_by: z.string().nullable(),
  /** A rotated-out secret still inside its grace window (developer-apps.ts); null once it is over. */
  previous_secret_hash: z.instanceof(Buffer).nullable(),
  previous_secret_expires_at: z.string().nullable(),
  created_at: z.string(),
});
export type OAuthClient = z.infer<typeof OAuthClientRow>;

export const CLIENT_COLUMNS = sql.fragment`
  client_id, name, redirect_uris, scopes, confidential, secret_hash, owner_user_id, registered_by,
  CASE WHEN previous_secret_expires_at > now() THEN previous_secret_hash END AS previous_secret_hash,
  CASE WHEN previous_secret_expires_at > now() THEN previous_secret_expires_at END AS previous_secret_expires_at, created_at
`;
const COLUMNS = CLIENT_COLUMNS;

/** 32 random bytes, shown once. */
export const newClientSecret = () => `rcs_${randomBytes(32).toString('base64url')}`;

export const hashClientSecret = (secret: string) => createHash('sha256').update(secret, 'utf8').digest();

/** Constant time whatever the presented secret looks like; a rotated-out secret counts inside its grace window. */
export function secretMatches(client: OAuthClient, presented: string): boolean {
  if (!client.secret_hash) return false;
  const hash = hashClientSecret(presented);
  const current = timingSafeEqual(hash, client.secret_hash);
  const previous = client.previous_secret_hash !== null && timingSafeEqual(hash, client.previous_secret_hash);
  return current || previous;
}

/** Exact strings are compared at authorization (RFC 9700 2.1), so registration only checks the form. */
export function checkRedirectUri(uri: string): string {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new Invalid(`redirect URI "${uri}" is not an absolute URL`);
  }
  if (url.hash) throw new Invalid(`redirect URI "${uri}" must not have a fragment`);
  const loopback = url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
  if (url.protocol !== 'https:' && !loopback) throw new Invalid(`redirect URI "${uri}" must be https (http only for localhost/127.0.0.1)`);
  return uri;
}

export function checkName(name: string): void {
  if (!name.trim() || name.length > 100) throw new Invalid('the name must be 1 to 100 characters');
}

export function checkRedirectUris(uris: readonly string[]): string[] {
  if (uris.length < 1 || uris.length > 10) throw new Invalid('give 1 to 10 redirect URIs');
  return [...new Set(uris.map(checkRedirectUri))];
}

export function parseScopes(scopes: string): OAuthScope[] {
  const names = [...new Set(scopes.split(' ').filter(Boolean))];
  const unknown = names.find((name) => !(OAUTH_SCOPES as readonly string[]).includes(name));
  if (unknown) throw new Invalid(`unknown scope "${unknown}"; known: ${OAUTH_SCOPES.join(' ')}`);
  return names as OAuthScope[];
}

export type NewClient = { name: string; redirectUris: string[]; scopes?: string; confidential: boolean; ownerUserId?: string; registeredBy?: string };

export async function createClient(db: CommonQueryMethods, input: NewClient): Promise<{ client: OAuthClient; secret?: string }> {
  checkName(input.name);
  const redirectUris = checkRedirectUris(input.redirectUris);
  const scopes = input.scopes === undefined ? [...DEFAULT_CLIENT_SCOPES] : parseScopes(input.scopes);
  if (scopes.length === 0) throw new Invalid('give at least one scope');
  const clientId = `app_${randomBytes(16).toString('hex')}`;
  const secret = input.confidential ? newClientSecret() : undefined;
  const client = await db.one(sql.type(OAuthClientRow)`
    INSERT INTO oauth_clients (client_id, name, redirect_uris, scopes, confidential, secret_hash, owner_user_id, registered_by)
    VALUES (${clientId}, ${input.name.trim()}, ${sql.array(redirectUris, 'text')}, ${sql.array(scopes, 'text')}, ${input.confidential},
            ${secret ? sql.binary(hashClientSecret(secret)) : null}, ${input.ownerUserId ?? null}, ${input.registeredBy ?? null})
    RETURNING ${COLUMNS}
  `);
  if (input.ownerUserId) {
    // The owner's standing authorization for the app's client_credentials tokens; it
    // consents to nothing on the owner's behalf in the authorization code flow (consented_scopes).
    await db.query(sql.typeAlias('void')`
      INSERT INTO oauth_authorizations (user_id, client_id, scopes) VALUES (${input.ownerUserId}, ${clientId}, ${sql.array(scopes, 'text')})
    `);
  }
  return { client, secret };
}

export function findClient(db: CommonQueryMethods, clientId: string) {
  return db.maybeOne(sql.type(OAuthClientRow)`SELECT ${COLUMNS} FROM oauth_clients WHERE client_id = ${clientId}`);
}

/** For the operator's CLI: every client, newest first (operators register a handful). */
export function listClients(db: CommonQueryMethods) {
  return db.any(sql.type(OAuthClientRow)`SELECT ${COLUMNS} FROM oauth_clients ORDER BY created_at DESC, client_id LIMIT 1000`);
}

/** Revokes every token the client holds, then forgets it; false when there was no such client. */
export async function deleteClient(db: DatabasePool, clientId: string, accessTokenTtlMs: number): Promise<boolean> {
  return db.transaction(async (tx) => {
    await endClientGrants(tx, { clientId, accessTokenTtlMs });
    const authorizations = await tx.anyFirst(sql.type(z.object({ id: z.string() }))`SELECT id FROM oauth_authorizations WHERE client_id = ${clientId}`);
    // The owner's authorization and the app's own registration: what its client_credentials tokens name.
    await listAsRevoked(tx, [...authorizations, clientId], accessTokenTtlMs);
    const deleted = await tx.maybeOneFirst(
      sql.type(z.object({ client_id: z.string() }))`DELETE FROM oauth_clients WHERE client_id = ${clientId} RETURNING client_id`,
    );
    return deleted !== null;
  });
}

export function presentClient(client: OAuthClient) {
  return {
    client_id: client.client_id,
    name: client.name,
    redirect_uris: client.redirect_uris,
    scopes: client.scopes,
    confidential: client.confidential,
    owner_user_id: client.owner_user_id,
    previous_secret_expires_at: client.previous_secret_expires_at,
    created_at: client.created_at,
  };
}
