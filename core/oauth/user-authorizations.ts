// What each user let each app do (oauth_authorizations): recorded at consent, consulted so a repeat
// request skips the screen, listed under /v1/users/me/authorizations. Taking an authorization back
// ends every grant of the pair and every token issued under them, in one transaction (grants.ts).
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { keysetPage } from '../pagination/keyset.ts';
import { endUserGrants, listAsRevoked } from './grants.ts';

export const UserAuthorizationRow = z.object({
  client_id: z.string(),
  client_name: z.string(),
  scopes: z.array(z.string()),
  created_at: z.string(),
  updated_at: z.string(),
});
export type UserAuthorization = z.infer<typeof UserAuthorizationRow>;

/** Newest first; `after` is the (updated_at, client_id) of the previous page's last row. */
export function listUserAuthorizations(db: CommonQueryMethods, userId: string, limit: number, after?: readonly [string, string]) {
  const keyset = keysetPage(
    [
      [sql.fragment`a.updated_at`, 'timestamptz'],
      [sql.fragment`a.client_id`, 'text'],
    ],
    after,
    'desc',
    limit,
  );
  return db.any(sql.type(UserAuthorizationRow)`
    SELECT a.client_id, c.name AS client_name, a.scopes, a.created_at, a.updated_at
    FROM oauth_authorizations a JOIN oauth_clients c ON c.client_id = a.client_id
    WHERE a.user_id = ${userId} AND ${keyset.where}
    ${keyset.orderAndLimit}
  `);
}

/** The scopes the user consented to for the client on a consent screen (empty when none). */
export async function consentedScopes(db: CommonQueryMethods, userId: string, clientId: string): Promise<readonly string[]> {
  const scopes = await db.maybeOneFirst(sql.type(z.object({ consented_scopes: z.array(z.string()) }))`
    SELECT consented_scopes FROM oauth_authorizations WHERE user_id = ${userId} AND client_id = ${clientId}
  `);
  return scopes ?? [];
}

/** Records an approval on the consent screen: the scopes join what the user granted the client before. */
export async function recordConsent(db: CommonQueryMethods, input: { userId: string; clientId: string; scopes: readonly string[] }): Promise<void> {
  const scopes = sql.array([...input.scopes], 'text');
  await db.query(sql.typeAlias('void')`
    INSERT INTO oauth_authorizations (user_id, client_id, scopes, consented_scopes)
    VALUES (${input.userId}, ${input.clientId}, ${scopes}, ${scopes})
    ON CONFLICT (user_id, client_id) DO UPDATE
    SET scopes = ARRAY(SELECT DISTINCT unnest(oauth_authorizations.scopes || EXCLUDED.scopes) ORDER BY 1),
        consented_scopes = ARRAY(SELECT DISTINCT unnest(oauth_authorizations.consented_scopes || EXCLUDED.consented_scopes) ORDER BY 1),
        updated_at = now()
  `);
}

/**
 * The standing authorization of an app's owner, for its client_credentials tokens: its id (the
 * grant those tokens name) and scopes; null once the owner took it back.
 */
export function ownerAuthorization(db: CommonQueryMethods, userId: string, clientId: string) {
  return db.maybeOne(sql.type(z.object({ id: z.string(), scopes: z.array(z.string()) }))`
    SELECT id, scopes FROM oauth_authorizations WHERE user_id = ${userId} AND client_id = ${clientId}
  `);
}

/** False when the user had not authorized this client. */
export async function revokeUserAuthorization(db: DatabasePool, input: { userId: string; clientId: string; accessTokenTtlMs: number }): Promise<boolean> {
  return db.transaction(async (tx) => {
    const removed = await tx.maybeOneFirst(sql.type(z.object({ id: z.string() }))`
      DELETE FROM oauth_authorizations WHERE user_id = ${input.userId} AND client_id = ${input.clientId} RETURNING id
    `);
    // Also grants approved before, and the owner's client_credentials tokens: nothing of this app stays.
    await endUserGrants(tx, input);
    if (removed !== null) await listAsRevoked(tx, [removed], input.accessTokenTtlMs);
    return removed !== null;
  });
}

export function presentUserAuthorization(row: UserAuthorization) {
  return { client_id: row.client_id, name: row.client_name, scopes: row.scopes, created_at: row.created_at, updated_at: row.updated_at };
}
