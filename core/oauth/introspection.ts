// Token introspection (RFC 7662) for the client a token was issued to. A token is active only while
// it would be honoured: an access token whose signature, issuer and expiry hold, that is not on the
// revocation list and whose grant stands; a refresh token not yet rotated, expired or revoked with its
// grant. A token of another client is inactive to the caller (RFC 7662 2.2 lets the server say so),
// so introspection never tells one app about another app's tokens.
// Access tokens are JWTs: oidc-provider refuses to introspect or revoke structured tokens
// (lib/shared/reject_structured_tokens.js), so this half stays Rally's whichever server issues them.
import { jwtVerify, type JWTPayload } from 'jose';
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import type { OAuthSigner } from './signing-key.ts';
import { hashRefreshToken, REFRESH_TOKEN_PREFIX } from './token-families.ts';

export type Introspection =
  | { active: false }
  | {
      active: true;
      client_id: string;
      scope: string;
      sub: string;
      iss: string;
      exp: number;
      iat: number;
      token_type?: 'Bearer';
      aud?: string | string[];
      jti?: string;
    };

const INACTIVE: Introspection = { active: false };

const RefreshRow = z.object({ client_id: z.string(), user_id: z.string().nullable(), scopes: z.array(z.string()), iat: z.number(), exp: z.number() });

async function introspectRefreshToken(db: DatabasePool, issuer: string, token: string, clientId: string): Promise<Introspection> {
  const row = await db.maybeOne(sql.type(RefreshRow)`
    SELECT f.client_id, f.user_id, f.scopes,
           extract(epoch FROM f.created_at)::int8 AS iat, extract(epoch FROM r.expires_at)::int8 AS exp
    FROM oauth_refresh_tokens r JOIN oauth_token_families f ON f.id = r.family_id
    WHERE r.token_hash = ${sql.binary(hashRefreshToken(token))} AND f.client_id = ${clientId}
      AND r.used_at IS NULL AND r.expires_at > now() AND f.revoked_at IS NULL
  `);
  if (!row) return INACTIVE;
  return { active: true, client_id: row.client_id, scope: row.scopes.join(' '), sub: row.user_id ?? row.client_id, iss: issuer, exp: row.exp, iat: row.iat };
}

async function verifiedClaims(signer: Pick<OAuthSigner, 'issuer' | 'keySet'>, token: string): Promise<JWTPayload | undefined> {
  try {
    // Expired, forged or foreign: nothing Rally would honour, so inactive.
    return (await jwtVerify(token, signer.keySet, { issuer: signer.issuer, typ: 'at+jwt' })).payload;
  } catch {
    return undefined;
  }
}

async function introspectAccessToken(db: DatabasePool, signer: Pick<OAuthSigner, 'issuer' | 'keySet'>, token: string, clientId: string) {
  const claims = await verifiedClaims(signer, token);
  if (!claims?.jti || !claims.sub || !claims.exp || !claims.iat || claims.client_id !== clientId) return INACTIVE;
  // The in-memory revocation list is the API's; here the table is read, as it is the same list.
  const live = await db.maybeOneFirst(sql.type(z.object({ jti: z.string() }))`
    SELECT a.jti FROM oauth_access_tokens a JOIN oauth_token_families f ON f.id = a.family_id
    WHERE a.jti = ${claims.jti} AND f.client_id = ${clientId} AND f.revoked_at IS NULL AND a.expires_at > now()
      AND NOT EXISTS (SELECT FROM revoked_access_tokens v WHERE v.jti = a.jti)
  `);
  if (!live) return INACTIVE;
  return {
    active: true,
    client_id: clientId,
    scope: typeof claims.scope === 'string' ? claims.scope : '',
    sub: claims.sub,
    iss: signer.issuer,
    exp: claims.exp,
    iat: claims.iat,
    token_type: 'Bearer',
    ...(claims.aud === undefined ? {} : { aud: claims.aud }),
    jti: claims.jti,
  } satisfies Introspection;
}

/** What `token` is to the client `clientId` (already authenticated); token_type_hint is not needed, the two kinds differ in form. */
export function introspectAppToken(
  deps: { db: DatabasePool; signer: Pick<OAuthSigner, 'issuer' | 'keySet'> },
  token: string,
  clientId: string,
): Promise<Introspection> {
  if (token.startsWith(REFRESH_TOKEN_PREFIX)) return introspectRefreshToken(deps.db, deps.signer.issuer, token, clientId);
  return introspectAccessToken(deps.db, deps.signer, token, clientId);
}
