// Revoking app tokens one at a time (RFC 7009), beside whole grants (token-families.ts): a refresh
// token takes its grant's family with it (every access token issued in it), an access token goes
// alone. Either way the ids land on the revocation list with a NOTIFY in the same transaction, so
// every API process refuses them from the commit on. Who may revoke is the caller's to say: the
// client the token was issued to (POST /oauth/revoke) or the user it acts for (POST /v1/auth/revoke).
import { jwtVerify } from 'jose';
import type { DatabasePool, FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { TOKEN_REVOKED_CHANNEL } from '../auth/revocation-list.ts';
import type { OAuthSigner } from './signing-key.ts';
import { hashRefreshToken, REFRESH_TOKEN_PREFIX, revokeFamilies } from './token-families.ts';

/** Whose tokens a caller may revoke: those of one client, or those acting for one user. */
export type RevokingParty = { clientId: string } | { userId: string };

function ownedBy(party: RevokingParty): FragmentSqlToken {
  return 'clientId' in party ? sql.fragment`f.client_id = ${party.clientId}` : sql.fragment`f.user_id = ${party.userId}`;
}

/** True when a live family was revoked; a token that is unknown, foreign or already dead changes nothing. */
export async function revokeAppRefreshToken(db: DatabasePool, token: string, party: RevokingParty): Promise<boolean> {
  return db.transaction(async (tx) => {
    const familyId = await tx.maybeOneFirst(sql.type(z.object({ family_id: z.string() }))`
      SELECT r.family_id FROM oauth_refresh_tokens r JOIN oauth_token_families f ON f.id = r.family_id
      WHERE r.token_hash = ${sql.binary(hashRefreshToken(token))} AND ${ownedBy(party)}
    `);
    if (!familyId) return false;
    await revokeFamilies(tx, sql.fragment`id = ${familyId}`);
    return true;
  });
}

const LiveAccessToken = z.object({ jti: z.string(), expires_ms: z.number() });

/** An app access token Rally signed and `party` owns, alone; false when there was nothing to revoke. */
export async function revokeAppAccessToken(db: DatabasePool, signer: Pick<OAuthSigner, 'issuer' | 'keySet'>, token: string, party: RevokingParty) {
  let jti: string | undefined;
  try {
    // An expired token needs no revoking, and one Rally did not sign names nothing of ours.
    ({
      payload: { jti },
    } = await jwtVerify(token, signer.keySet, { issuer: signer.issuer, typ: 'at+jwt' }));
  } catch {
    return false;
  }
  if (!jti) return false;
  return db.transaction(async (tx) => {
    const live = await tx.maybeOne(sql.type(LiveAccessToken)`
      SELECT a.jti, (extract(epoch FROM a.expires_at) * 1000)::int8 AS expires_ms
      FROM oauth_access_tokens a JOIN oauth_token_families f ON f.id = a.family_id
      WHERE a.jti = ${jti} AND a.expires_at > now() AND ${ownedBy(party)}
    `);
    if (!live) return false;
    await tx.query(sql.typeAlias('void')`
      INSERT INTO revoked_access_tokens (jti, expires_at) VALUES (${live.jti}, to_timestamp(${live.expires_ms} / 1000.0)) ON CONFLICT (jti) DO NOTHING
    `);
    await tx.query(sql.typeAlias('void')`SELECT FROM pg_notify(${TOKEN_REVOKED_CHANNEL}, ${`${live.jti} ${live.expires_ms}`})`);
    return true;
  });
}

/** Rally's two kinds of app token are told apart by their form, so token_type_hint is not needed (RFC 7009 2.1 lets a server ignore it). */
export async function revokeAppToken(
  deps: { db: DatabasePool; signer: Pick<OAuthSigner, 'issuer' | 'keySet'> },
  token: string,
  party: RevokingParty,
): Promise<boolean> {
  if (token.startsWith(REFRESH_TOKEN_PREFIX)) return revokeAppRefreshToken(deps.db, token, party);
  return revokeAppAccessToken(deps.db, deps.signer, token, party);
}
