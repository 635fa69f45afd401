// Issuing and revoking app tokens. Every code exchange (or client_credentials grant) starts a token
// family; refresh tokens rotate inside it. Revoking a family marks it, so its refresh tokens stop
// working, and puts every live access token id on the revocation list that every API process
// checks (revoked_access_tokens + NOTIFY, the same list logout uses).
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import type { CommonQueryMethods, FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { TOKEN_REVOKED_CHANNEL } from '../auth/revocation-list.ts';
import type { OAuthSigner } from './signing-key.ts';

export type TokenLifetimes = { accessTokenTtlMs: number; refreshTokenTtlMs: number };
export type IssuedTokens = { access_token: string; token_type: 'Bearer'; expires_in: number; refresh_token?: string; scope: string };

/** App refresh tokens start with this; app access tokens are JWTs. */
export const REFRESH_TOKEN_PREFIX = 'rrt_';

export const hashRefreshToken = (token: string) => createHash('sha256').update(token, 'utf8').digest();

/** `userId` null: an app-only family (client_credentials without an owner), acting for no user. */
export async function startFamily(tx: CommonQueryMethods, input: { clientId: string; userId: string | null; scopes: readonly string[] }): Promise<string> {
  return tx.oneFirst(sql.type(z.object({ id: z.string() }))`
    INSERT INTO oauth_token_families (client_id, user_id, scopes)
    VALUES (${input.clientId}, ${input.userId}, ${sql.array([...input.scopes], 'text')})
    RETURNING id
  `);
}

/** An access token for the API (and a refresh token unless withRefresh is false), recorded in the family. */
export async function issueTokens(
  tx: CommonQueryMethods,
  deps: { signer: OAuthSigner; audience: string; lifetimes: TokenLifetimes },
  input: { familyId: string; clientId: string; userId: string | null; scopes: readonly string[]; withRefresh: boolean },
): Promise<IssuedTokens> {
  const { signer, lifetimes } = deps;
  const jti = randomUUID();
  const expiresIn = Math.round(lifetimes.accessTokenTtlMs / 1000);
  const scope = input.scopes.join(' ');
  const { kid, privateKey } = signer.signingKey();
  const accessToken = await new SignJWT({ client_id: input.clientId, scope })
    .setProtectedHeader({ alg: 'RS256', kid, typ: 'at+jwt' })
    .setIssuer(signer.issuer)
    // An app-only token's subject is the client itself (RFC 9068 2.2): it names no user.
    .setSubject(input.userId ?? input.clientId)
    .setAudience(deps.audience)
    .setJti(jti)
    .setIssuedAt()
    .setExpirationTime(`${expiresIn}s`)
    .sign(privateKey);
  await tx.query(sql.typeAlias('void')`
    INSERT INTO oauth_access_tokens (jti, family_id, expires_at) VALUES (${jti}, ${input.familyId}, now() + ${`${expiresIn} seconds`}::interval)
  `);
  const tokens: IssuedTokens = { access_token: accessToken, token_type: 'Bearer', expires_in: expiresIn, scope };
  if (input.withRefresh) {
    const refreshToken = `${REFRESH_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    // Counted from the code exchange, as login sessions count from the login: rotation never
    // stretches a grant's refresh tokens beyond RALLY_REFRESH_TOKEN_TTL.
    await tx.query(sql.typeAlias('void')`
      INSERT INTO oauth_refresh_tokens (token_hash, family_id, expires_at)
      SELECT ${sql.binary(hashRefreshToken(refreshToken))}, id, created_at + ${`${Math.round(lifetimes.refreshTokenTtlMs / 1000)} seconds`}::interval
      FROM oauth_token_families WHERE id = ${input.familyId}
    `);
    tokens.refresh_token = refreshToken;
  }
  return tokens;
}

const RevokedToken = z.object({ jti: z.string(), expires_ms: z.number() });

/** Revokes the families matching `where` (a condition on oauth_token_families); call inside a transaction. */
export async function revokeFamilies(tx: CommonQueryMethods, where: FragmentSqlToken): Promise<number> {
  const tokens = await tx.any(sql.type(RevokedToken)`
    WITH revoked AS (
      UPDATE oauth_token_families SET revoked_at = now() WHERE ${where} AND revoked_at IS NULL RETURNING id
    ), live AS (
      SELECT a.jti, a.expires_at FROM oauth_access_tokens a JOIN revoked r ON r.id = a.family_id WHERE a.expires_at > now()
    ), listed AS (
      INSERT INTO revoked_access_tokens (jti, expires_at) SELECT jti, expires_at FROM live ON CONFLICT (jti) DO NOTHING
    )
    SELECT jti, (extract(epoch FROM expires_at) * 1000)::int8 AS expires_ms FROM live
  `);
  for (const token of tokens) {
    await tx.query(sql.typeAlias('void')`SELECT FROM pg_notify(${TOKEN_REVOKED_CHANNEL}, ${`${token.jti} ${token.expires_ms}`})`);
  }
  return tokens.length;
}
