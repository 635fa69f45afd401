// Revoking one app access token (RFC 7009 for JWTs, which oidc-provider refuses to revoke: see api/oauth/server/structured-tokens.ts), and an app's refresh
// token by the user it acts for (POST /v1/auth/revoke). Either way the ids land on the revocation list with a NOTIFY in the same transaction, so every API
// process refuses them from the commit on.
import { jwtVerify, type JWTPayload } from 'jose';
import type { DatabasePool } from 'slonik';
import { hashTokenValue } from '../../db/oidc-provider-storage.ts';
import { listRevocations } from '../auth/revocation-list.ts';
import { endGrantOfRefreshToken } from './grants.ts';
import type { OAuthSigner } from './signing-key.ts';

/** Whose tokens a caller may revoke: those of one client, or those acting for one user. */
export type RevokingParty = { clientId: string } | { userId: string };

/** The claims of an app access token Rally signed and has not expired; undefined for anything else. */
export async function verifiedAppToken(signer: Pick<OAuthSigner, 'issuer' | 'keySet'>, token: string): Promise<JWTPayload | undefined> {
  try {
    return (await jwtVerify(token, signer.keySet, { issuer: signer.issuer, typ: 'at+jwt' })).payload;
  } catch {
    return undefined;
  }
}

const ownedBy = (claims: JWTPayload, party: RevokingParty) =>
  'clientId' in party ? claims.client_id === party.clientId : claims.sub === party.userId && claims.sub !== claims.client_id;

/** An app access token `party` owns, alone; false when there was nothing to revoke. */
export async function revokeAppAccessToken(db: DatabasePool, signer: Pick<OAuthSigner, 'issuer' | 'keySet'>, token: string, party: RevokingParty) {
  const claims = await verifiedAppToken(signer, token);
  if (!claims?.jti || !claims.exp || !ownedBy(claims, party)) return false;
  const revoked = { jti: claims.jti, expiresAt: new Date(claims.exp * 1000) };
  await db.transaction((tx) => listRevocations(tx, [revoked]));
  return true;
}

/** An app refresh token acting for `userId`: its whole grant ends, as at /oauth/revoke. False when it is not one. */
export function revokeAppRefreshToken(db: DatabasePool, token: string, input: { userId: string; accessTokenTtlMs: number }): Promise<boolean> {
  return endGrantOfRefreshToken(db, { tokenHash: hashTokenValue(token), ...input });
}
