// The token endpoint's grants (RFC 6749 4.1.3, 4.4, 6; PKCE RFC 7636 4.6). A code is good once: a
// second presentation revokes the tokens it already produced. A refresh token is good once too: it
// rotates, and a replayed one revokes its whole family (RFC 9700 4.14.2).
import { createHash, timingSafeEqual } from 'node:crypto';
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { findClient, parseScopes, secretMatches, type OAuthClient } from './clients.ts';
import { hashCode } from './authorization.ts';
import type { OAuthSigner } from './signing-key.ts';
import { hashRefreshToken, issueTokens, revokeFamilies, startFamily, type IssuedTokens, type TokenLifetimes } from './token-families.ts';
import { invalidGrant, invalidRequest, OAuthError } from './token-errors.ts';

export type GrantDependencies = { db: DatabasePool; signer: OAuthSigner; audience: string; lifetimes: TokenLifetimes };
export type TokenParams = Record<string, string | undefined>;

const PKCE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
const invalidClient = () => new OAuthError('invalid_client', 'Client authentication failed.', 401);

/** client_secret_basic or client_secret_post for confidential clients; client_id alone for public ones. */
export async function authenticateClient(db: DatabasePool, credentials: { clientId?: string; clientSecret?: string }): Promise<OAuthClient> {
  if (!credentials.clientId) throw invalidClient();
  const client = await findClient(db, credentials.clientId);
  if (!client) throw invalidClient();
  if (client.confidential ? !secretMatches(client, credentials.clientSecret ?? '') : credentials.clientSecret !== undefined) throw invalidClient();
  return client;
}

function requestedScopes(requested: string | undefined, allowed: readonly string[]): string[] {
  if (requested === undefined) return [...allowed];
  let scopes: string[];
  try {
    scopes = parseScopes(requested);
  } catch (error) {
    throw new OAuthError('invalid_scope', (error as Error).message);
  }
  const beyond = scopes.find((scope) => !allowed.includes(scope));
  if (beyond || scopes.length === 0) throw new OAuthError('invalid_scope', beyond ? `The scope "${beyond}" was not granted.` : 'No scope was requested.');
  return scopes;
}

function pkceMatches(challenge: string, verifier: string): boolean {
  if (!PKCE_VERIFIER.test(verifier)) return false;
  const computed = Buffer.from(createHash('sha256').update(verifier, 'ascii').digest('base64url'));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}

const CodeRow = z.object({
  client_id: z.string(),
  user_id: z.string(),
  redirect_uri: z.string(),
  scopes: z.array(z.string()),
  code_challenge: z.string().nullable(),
  live: z.boolean(),
  used: z.boolean(),
  family_id: z.string().nullable(),
});

export async function exchangeCode(deps: GrantDependencies, client: OAuthClient, params: TokenParams): Promise<IssuedTokens> {
  if (!params.code || !params.redirect_uri) throw invalidRequest('code and redirect_uri are required.');
  const outcome = await deps.db.transaction(async (tx): Promise<IssuedTokens | OAuthError> => {
    const code = await tx.maybeOne(sql.type(CodeRow)`
      SELECT client_id, user_id, redirect_uri, scopes, code_challenge, expires_at > now() AS live, used_at IS NOT NULL AS used, family_id
      FROM oauth_authorization_codes WHERE code_hash = ${sql.binary(hashCode(params.code!))} FOR UPDATE
    `);
    if (!code || code.client_id !== client.client_id) return invalidGrant('The authorization code is not valid.');
    if (code.used) {
      // A replayed code means it leaked: take down what the first exchange produced (RFC 6749 4.1.2).
      if (code.family_id) await revokeFamilies(tx, sql.fragment`id = ${code.family_id}`);
      return invalidGrant('The authorization code was already used; the tokens issued from it are revoked.');
    }
    if (!code.live) return invalidGrant('The authorization code has expired.');
    if (code.redirect_uri !== params.redirect_uri) return invalidGrant('redirect_uri differs from the one in the authorization request.');
    if (code.code_challenge !== null) {
      if (!params.code_verifier) return invalidGrant('code_verifier is required (PKCE).');
      if (!pkceMatches(code.code_challenge, params.code_verifier)) return invalidGrant('code_verifier does not match the code_challenge.');
    } else if (params.code_verifier !== undefined) {
      return invalidGrant('code_verifier was sent but the authorization request had no code_challenge.');
    }
    const familyId = await startFamily(tx, { clientId: client.client_id, userId: code.user_id, scopes: code.scopes });
    await tx.query(sql.typeAlias('void')`
      UPDATE oauth_authorization_codes SET used_at = now(), family_id = ${familyId} WHERE code_hash = ${sql.binary(hashCode(params.code!))}
    `);
    return issueTokens(tx, deps, { familyId, clientId: client.client_id, userId: code.user_id, scopes: code.scopes, withRefresh: true });
  });
  if (outcome instanceof OAuthError) throw outcome;
  return outcome;
}

const RefreshRow = z.object({
  family_id: z.string(),
  used: z.boolean(),
  live: z.boolean(),
  client_id: z.string(),
  user_id: z.string(),
  scopes: z.array(z.string()),
  revoked: z.boolean(),
});

export async function refresh(deps: GrantDependencies, client: OAuthClient, params: TokenParams): Promise<IssuedTokens> {
  if (!params.refresh_token) throw invalidRequest('refresh_token is required.');
  const hash = hashRefreshToken(params.refresh_token);
  const outcome = await deps.db.transaction(async (tx): Promise<IssuedTokens | OAuthError> => {
    const token = await tx.maybeOne(sql.type(RefreshRow)`
      SELECT r.family_id, r.used_at IS NOT NULL AS used, r.expires_at > now() AS live, f.client_id, f.user_id, f.scopes, f.revoked_at IS NOT NULL AS revoked
      FROM oauth_refresh_tokens r JOIN oauth_token_families f ON f.id = r.family_id
      WHERE r.token_hash = ${sql.binary(hash)} FOR UPDATE OF r, f
    `);
    if (!token || token.client_id !== client.client_id || token.revoked) return invalidGrant('The refresh token is not valid.');
    if (token.used) {
      await revokeFamilies(tx, sql.fragment`id = ${token.family_id}`);
      return invalidGrant('The refresh token was already used; every token of this grant is revoked.');
    }
    if (!token.live) return new OAuthError('token_expired', 'The refresh token has expired; send the user through authorization again.', 401);
    const scopes = requestedScopes(params.scope, token.scopes);
    await tx.query(sql.typeAlias('void')`UPDATE oauth_refresh_tokens SET used_at = now() WHERE token_hash = ${sql.binary(hash)}`);
    return issueTokens(tx, deps, { familyId: token.family_id, clientId: client.client_id, userId: token.user_id, scopes, withRefresh: true });
  });
  if (outcome instanceof OAuthError) throw outcome;
  return outcome;
}

/**
 * client_credentials (RFC 6749 4.4), confidential clients only, no refresh token. Without an owner
 * the token is app-only: it acts for no user, so it reaches public reads alone. With an owner it acts
 * for the owner while the owner's authorization stands (made at registration, listed and revocable
 * under /v1/users/me/authorizations), within the scopes of that authorization.
 */
export async function clientCredentials(deps: GrantDependencies, client: OAuthClient, params: TokenParams): Promise<IssuedTokens> {
  if (!client.confidential) throw new OAuthError('unauthorized_client', 'Public clients cannot use client_credentials.');
  const userId = client.owner_user_id;
  let allowed: readonly string[] = client.scopes;
  if (userId) {
    const granted = await deps.db.maybeOneFirst(sql.type(z.object({ scopes: z.array(z.string()) }))`
      SELECT scopes FROM oauth_authorizations WHERE user_id = ${userId} AND client_id = ${client.client_id}
    `);
    if (!granted) throw new OAuthError('unauthorized_client', "The owner has revoked this app's authorization; they can grant it again at /oauth/authorize.");
    allowed = granted;
  }
  const scopes = requestedScopes(params.scope, allowed);
  return deps.db.transaction(async (tx) => {
    const familyId = await startFamily(tx, { clientId: client.client_id, userId, scopes });
    return issueTokens(tx, deps, { familyId, clientId: client.client_id, userId, scopes, withRefresh: false });
  });
}
