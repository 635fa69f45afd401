// Ending grants: what one approval (or an owner's standing authorization) lets an app do for a user. oidc-provider keeps them in oauth_server_records with
// their codes and refresh tokens; access tokens are JWTs nobody is asked about, so ending a grant also lists its id as revoked (GRANT_ID_CLAIM) with a NOTIFY
// in the same transaction: every API process refuses its tokens from the commit on. The entry outlives the longest access token.
import type { CommonQueryMethods, DatabasePool, FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { listRevocations } from '../auth/revocation-list.ts';

// A grant's tokens were all issued before it ended: listed this long (plus clock skew), none is left.
const CLOCK_SKEW_MS = 5 * 60_000;

/** Puts grant ids on the revocation list; call inside the transaction that ends them. */
export function listAsRevoked(tx: CommonQueryMethods, ids: readonly string[], accessTokenTtlMs: number): Promise<void> {
  const expiresAt = new Date(Date.now() + accessTokenTtlMs + CLOCK_SKEW_MS);
  return listRevocations(
    tx,
    ids.map((jti) => ({ jti, expiresAt })),
  );
}

/**
 * Ends every provider grant matching `where` (a condition on the Grant's payload, `g`): its codes and
 * refresh tokens are forgotten and its id listed as revoked. Returns how many grants ended.
 */
async function endProviderGrants(tx: CommonQueryMethods, where: FragmentSqlToken, accessTokenTtlMs: number): Promise<number> {
  const grantIds = await tx.anyFirst(sql.type(z.object({ id: z.string() }))`
    DELETE FROM oauth_server_records g WHERE g.model = 'Grant' AND ${where} RETURNING g.id
  `);
  if (grantIds.length === 0) return 0;
  await tx.query(sql.typeAlias('void')`DELETE FROM oauth_server_records WHERE grant_id = ANY (${sql.array([...grantIds], 'text')})`);
  await listAsRevoked(tx, grantIds, accessTokenTtlMs);
  return grantIds.length;
}

/** Every grant a user gave a client (the flow's grants, and the owner's standing authorization). */
export function endUserGrants(tx: CommonQueryMethods, input: { userId: string; clientId: string; accessTokenTtlMs: number }) {
  return endProviderGrants(
    tx,
    sql.fragment`g.payload ->> 'accountId' = ${input.userId} AND g.payload ->> 'clientId' = ${input.clientId}`,
    input.accessTokenTtlMs,
  );
}

/** Every grant of a client, whoever gave it (the client is being deleted). */
export function endClientGrants(tx: CommonQueryMethods, input: { clientId: string; accessTokenTtlMs: number }) {
  return endProviderGrants(tx, sql.fragment`g.payload ->> 'clientId' = ${input.clientId}`, input.accessTokenTtlMs);
}

/** The grant of a live app refresh token that acts for `userId`, ended; false when there is none. */
export async function endGrantOfRefreshToken(db: DatabasePool, input: { tokenHash: string; userId: string; accessTokenTtlMs: number }): Promise<boolean> {
  return db.transaction(async (tx) => {
    const grantId = await tx.maybeOneFirst(sql.type(z.object({ grant_id: z.string() }))`
      SELECT grant_id FROM oauth_server_records
      WHERE model = 'RefreshToken' AND id = ${input.tokenHash} AND payload ->> 'accountId' = ${input.userId} AND grant_id IS NOT NULL
    `);
    if (!grantId) return false;
    return (await endProviderGrants(tx, sql.fragment`g.id = ${grantId}`, input.accessTokenTtlMs)) > 0;
  });
}

/**
 * Whether `tokenHash` names an app refresh token that has expired unused: Rally's spec answers it
 * 401 token_expired (Authentication 7), where the provider would say only invalid_grant.
 */
export function isExpiredRefreshToken(db: CommonQueryMethods, tokenHash: string): Promise<boolean> {
  return db.oneFirst(sql.type(z.object({ expired: z.boolean() }))`
    SELECT EXISTS (
      SELECT FROM oauth_server_records WHERE model = 'RefreshToken' AND id = ${tokenHash} AND expires_at <= now() AND consumed_at IS NULL
    ) AS expired
  `);
}
