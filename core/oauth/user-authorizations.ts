// The apps a user has authorized, and taking an authorization back: the grant is forgotten and
// every token any app holds from it is revoked in the same transaction.
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { revokeFamilies } from './token-families.ts';

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
  return db.any(sql.type(UserAuthorizationRow)`
    SELECT a.client_id, c.name AS client_name, a.scopes, a.created_at, a.updated_at
    FROM oauth_authorizations a JOIN oauth_clients c ON c.client_id = a.client_id
    WHERE a.user_id = ${userId} ${after ? sql.fragment`AND (a.updated_at, a.client_id) < (${after[0]}::timestamptz, ${after[1]})` : sql.fragment``}
    ORDER BY a.updated_at DESC, a.client_id DESC
    LIMIT ${limit + 1}
  `);
}

/** False when the user had not authorized this client. */
export async function revokeUserAuthorization(db: DatabasePool, userId: string, clientId: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const removed = await tx.maybeOneFirst(sql.type(z.object({ client_id: z.string() }))`
      DELETE FROM oauth_authorizations WHERE user_id = ${userId} AND client_id = ${clientId} RETURNING client_id
    `);
    // Also tokens from client_credentials or from a code approved before: nothing of this app stays.
    await revokeFamilies(tx, sql.fragment`user_id = ${userId} AND client_id = ${clientId}`);
    return removed !== null;
  });
}

export function presentUserAuthorization(row: UserAuthorization) {
  return { client_id: row.client_id, name: row.client_name, scopes: row.scopes, created_at: row.created_at, updated_at: row.updated_at };
}
