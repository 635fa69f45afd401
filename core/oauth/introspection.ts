// Introspecting app access tokens (RFC 7662) for the client they were issued to; oidc-provider refuses structured tokens
// (api/oauth/server/structured-tokens.ts), so this half is Rally's. A token is active only while the API would honour it (signature, issuer, expiry, and
// neither it nor its grant revoked), and a token of another client is inactive to the caller (RFC 7662 2.2), so one app never learns about another's tokens.
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { GRANT_ID_CLAIM } from '../vocabulary.ts';
import { verifiedAppToken } from './revocation.ts';
import type { OAuthSigner } from './signing-key.ts';

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
      token_type: 'Bearer';
      aud?: string | string[];
      jti: string;
    };

const INACTIVE: Introspection = { active: false };

export async function introspectAppAccessToken(
  deps: { db: DatabasePool; signer: Pick<OAuthSigner, 'issuer' | 'keySet'> },
  token: string,
  clientId: string,
): Promise<Introspection> {
  const claims = await verifiedAppToken(deps.signer, token);
  if (!claims?.jti || !claims.sub || !claims.exp || !claims.iat || claims.client_id !== clientId) return INACTIVE;
  const grantId = claims[GRANT_ID_CLAIM];
  const ids = typeof grantId === 'string' ? [claims.jti, grantId] : [claims.jti];
  // The API's revocation list is in memory; here its table is read, as it is the same list.
  const revoked = await deps.db.oneFirst(sql.type(z.object({ revoked: z.boolean() }))`
    SELECT EXISTS (SELECT FROM revoked_access_tokens WHERE jti = ANY (${sql.array(ids, 'text')}) AND expires_at > now()) AS revoked
  `);
  if (revoked) return INACTIVE;
  return {
    active: true,
    client_id: clientId,
    scope: typeof claims.scope === 'string' ? claims.scope : '',
    sub: claims.sub,
    iss: deps.signer.issuer,
    exp: claims.exp,
    iat: claims.iat,
    token_type: 'Bearer',
    ...(claims.aud === undefined ? {} : { aud: claims.aud }),
    jti: claims.jti,
  };
}
