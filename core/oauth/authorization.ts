// The front half of the authorization code flow (RFC 6749 4.1.1-4.1.2, PKCE RFC 7636): checking an
// authorization request, the consent ticket that carries it through the consent form, and the
// one-time code an approval yields. A bad client_id or redirect_uri is shown to the user, never
// redirected to (RFC 6749 4.1.2.1); any other fault goes back to the app as error + state.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { findClient, parseScopes, type OAuthClient } from './clients.ts';
import type { OAuthSigner } from './signing-key.ts';

const CODE_TTL_SECONDS = 60;
const TICKET_TTL_SECONDS = 600;
const PKCE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export type AuthorizationRequest = { client: OAuthClient; redirectUri: string; scopes: string[]; state: string; codeChallenge: string | null };

export type CheckedRequest =
  | { kind: 'show_error'; message: string }
  | { kind: 'redirect_error'; redirectUri: string; error: string; description: string; state?: string }
  | { kind: 'valid'; request: AuthorizationRequest };

const one = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

export async function checkAuthorizationRequest(db: DatabasePool, query: Record<string, unknown>): Promise<CheckedRequest> {
  const clientId = one(query.client_id);
  const redirectUri = one(query.redirect_uri);
  if (!clientId || !redirectUri) return { kind: 'show_error', message: 'The link is missing its client_id or redirect_uri.' };
  const client = await findClient(db, clientId);
  if (!client) return { kind: 'show_error', message: 'No app is registered under this client_id.' };
  // Exact string comparison (RFC 9700 2.1): no prefix, port or path leeway.
  if (!client.redirect_uris.includes(redirectUri)) return { kind: 'show_error', message: 'This redirect_uri is not registered for the app.' };

  const state = one(query.state);
  const fail = (error: string, description: string): CheckedRequest => ({ kind: 'redirect_error', redirectUri, error, description, state });
  if (one(query.response_type) !== 'code') return fail('unsupported_response_type', 'Only response_type=code is supported.');
  if (!state) return fail('invalid_request', 'The state parameter is required.');
  let scopes: string[];
  try {
    scopes = query.scope === undefined ? client.scopes : parseScopes(one(query.scope) ?? '');
  } catch (error) {
    return fail('invalid_scope', (error as Error).message);
  }
  const beyond = scopes.find((scope) => !client.scopes.includes(scope));
  if (beyond || scopes.length === 0) return fail('invalid_scope', beyond ? `The app is not registered for the scope "${beyond}".` : 'No scope was requested.');
  const codeChallenge = one(query.code_challenge) ?? null;
  const method = one(query.code_challenge_method);
  // Every client, confidential ones too (RFC 9700 2.1.1): PKCE also stops code injection.
  if (codeChallenge === null) return fail('invalid_request', 'PKCE is required: send code_challenge with code_challenge_method=S256.');
  if (method !== 'S256') return fail('invalid_request', 'code_challenge_method must be S256.');
  if (!PKCE_CHALLENGE.test(codeChallenge)) return fail('invalid_request', 'code_challenge must be a base64url SHA-256 (43 characters).');
  return { kind: 'valid', request: { client, redirectUri, scopes, state, codeChallenge } };
}

export function redirectWith(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  return url.toString();
}

/** Whether the user already approved at least these scopes for the client (then consent is skipped). */
export async function alreadyGranted(db: DatabasePool, userId: string, request: AuthorizationRequest): Promise<boolean> {
  const granted = await db.maybeOneFirst(sql.type(z.object({ consented_scopes: z.array(z.string()) }))`
    SELECT consented_scopes FROM oauth_authorizations WHERE user_id = ${userId} AND client_id = ${request.client.client_id}
  `);
  return granted !== null && request.scopes.every((scope) => granted.includes(scope));
}

// The consent ticket: the checked request, signed, bound to the user and to the browser that saw
// the screen (`bnd`, the hash of a per-browser cookie: api/oauth/consent-binding.ts), short-lived.
const TicketClaims = z.object({
  sub: z.string(),
  jti: z.string(),
  client_id: z.string(),
  redirect_uri: z.string(),
  scope: z.string(),
  state: z.string(),
  code_challenge: z.string().nullable(),
  bnd: z.string(),
});
export type ConsentTicket = z.infer<typeof TicketClaims>;
/** What an approval records: the ticket without its browser binding (a repeat grant has no form). */
export type ApprovedRequest = Omit<ConsentTicket, 'bnd'>;
const ticketAudience = (signer: OAuthSigner) => `${signer.issuer}/oauth/authorize`;

export function signConsentTicket(signer: OAuthSigner, userId: string, request: AuthorizationRequest, browserBinding: string): Promise<string> {
  return new SignJWT({
    bnd: browserBinding,
    client_id: request.client.client_id,
    redirect_uri: request.redirectUri,
    scope: request.scopes.join(' '),
    state: request.state,
    code_challenge: request.codeChallenge,
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'consent+jwt' })
    .setIssuer(signer.issuer)
    .setAudience(ticketAudience(signer))
    .setSubject(userId)
    .setJti(randomUUID())
    .setIssuedAt()
    .setExpirationTime(`${TICKET_TTL_SECONDS}s`)
    .sign(signer.consentTicketKey);
}

/** The ticket's claims, or undefined when it is forged, expired or not a ticket. */
export async function verifyConsentTicket(signer: OAuthSigner, ticket: string): Promise<ConsentTicket | undefined> {
  try {
    const { payload } = await jwtVerify(ticket, signer.consentTicketKey, {
      issuer: signer.issuer,
      audience: ticketAudience(signer),
      typ: 'consent+jwt',
      algorithms: ['HS256'],
    });
    const parsed = TicketClaims.safeParse(payload);
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export const hashCode = (code: string) => createHash('sha256').update(code, 'utf8').digest();

/**
 * Records the approval and issues the one-time code; undefined when this ticket was already used
 * (one approval, one code).
 */
export async function approve(db: DatabasePool, ticket: ApprovedRequest): Promise<string | undefined> {
  const code = randomBytes(32).toString('base64url');
  const scopes = ticket.scope.split(' ');
  return db.transaction(async (tx) => {
    const inserted = await tx.maybeOneFirst(sql.type(z.object({ ticket_id: z.string() }))`
      INSERT INTO oauth_authorization_codes (code_hash, ticket_id, client_id, user_id, redirect_uri, scopes, code_challenge, expires_at)
      SELECT ${sql.binary(hashCode(code))}, ${ticket.jti}, c.client_id, ${ticket.sub}, ${ticket.redirect_uri}, ${sql.array(scopes, 'text')},
             ${ticket.code_challenge}, now() + ${`${CODE_TTL_SECONDS} seconds`}::interval
      FROM oauth_clients c WHERE c.client_id = ${ticket.client_id} AND ${ticket.redirect_uri} = ANY (c.redirect_uris)
      ON CONFLICT (ticket_id) DO NOTHING
      RETURNING ticket_id
    `);
    if (inserted === null) return undefined;
    await tx.query(sql.typeAlias('void')`
      INSERT INTO oauth_authorizations (user_id, client_id, scopes, consented_scopes)
      VALUES (${ticket.sub}, ${ticket.client_id}, ${sql.array(scopes, 'text')}, ${sql.array(scopes, 'text')})
      ON CONFLICT (user_id, client_id) DO UPDATE
      SET scopes = ARRAY(SELECT DISTINCT unnest(oauth_authorizations.scopes || EXCLUDED.scopes) ORDER BY 1),
          consented_scopes = ARRAY(SELECT DISTINCT unnest(oauth_authorizations.consented_scopes || EXCLUDED.consented_scopes) ORDER BY 1),
          updated_at = now()
    `);
    return code;
  });
}

/** A request the user approved before: it goes straight to a code, under a fresh ticket id. */
export function ticketOf(userId: string, request: AuthorizationRequest): ApprovedRequest {
  return {
    sub: userId,
    jti: randomUUID(),
    client_id: request.client.client_id,
    redirect_uri: request.redirectUri,
    scope: request.scopes.join(' '),
    state: request.state,
    code_challenge: request.codeChallenge,
  };
}
