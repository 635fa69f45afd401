// Turns a request's credentials into a Principal. Two kinds arrive as `Authorization: Bearer …`: API keys (`rally_live_…`/`rally_test_…`, one indexed query by
// hash) and access tokens (JWTs, verified locally; revocation and user state come from in-memory lists kept current by NOTIFY). `X-API-Key` still works but is
// deprecated, and its answers say so.
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { createBoundedLru } from '../../platform/bounded-lru.ts';
import type { Principal, RallyContext } from './context.ts';
import { announceDeprecation } from './deprecation.ts';
import { RallyError } from './problem.ts';
import type { AccessTokenVerifier } from '../../core/auth/access-tokens.ts';
import { hashApiKey, isWellFormedApiKey, looksLikeApiKey, sameHash } from '../../core/api-keys/secrets.ts';
import type { RevocationList } from '../../core/auth/revocation-list.ts';
import type { UserDirectory } from '../../core/users/directory.ts';

const unauthorized = (detail: string, code = 'invalid_token') => new RallyError('unauthorized', detail, { code, headers: { 'WWW-Authenticate': 'Bearer' } });
const suspended = () => new RallyError('forbidden', 'This account is suspended.', { code: 'account_suspended' });
const creatorSuspended = () =>
  new RallyError('forbidden', 'The person who created this organization key is suspended; its other admins can create a new one.', {
    code: 'account_suspended',
  });

const ApiKeyCredential = z.object({
  id: z.string().uuid(),
  user_id: z.string().uuid(),
  scope: z.enum(['read', 'read_write', 'full']),
  secret_hash: z.instanceof(Buffer),
  usable: z.boolean(),
  role: z.enum(['user', 'admin']),
  suspended: z.boolean(),
  organization_id: z.string().uuid().nullable(),
  created_by: z.string().uuid().nullable(),
  creator_suspended: z.boolean(),
});

/**
 * `suspendedMayCall`: a route a suspended person may still use with their own login (deleting or
 * exporting their data, issue 46); API keys and OAuth apps of a suspended person stay refused everywhere.
 */
export type Authenticator = (ctx: RallyContext, options?: { suspendedMayCall?: boolean }) => Promise<Principal | undefined>;

export function presentedCredential(ctx: RallyContext): string | undefined {
  const authorization = ctx.get('Authorization');
  if (authorization) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match) throw unauthorized('The Authorization header must be "Bearer <token>".');
    return match[1];
  }
  const legacy = ctx.get('X-API-Key');
  if (legacy) {
    announceDeprecation(ctx, 'apiKeyHeader', '</docs#authentication>; rel="deprecation"');
    return legacy.trim();
  }
  return undefined;
}

// Keys found invalid are remembered for a while, so a caller cycling through made-up or revoked keys
// costs a cache lookup, not a query each time. Bounded: the least recently found go first.
const INVALID_KEY_TTL_MS = 5 * 60_000;
const INVALID_KEY_CACHE_SIZE = 10_000;

export function createAuthenticator(deps: {
  db: DatabasePool;
  verifyAccessToken: AccessTokenVerifier;
  revocations: RevocationList;
  users: UserDirectory;
}): Authenticator {
  const invalidKeys = createBoundedLru<string, true>(INVALID_KEY_CACHE_SIZE, { ttl: INVALID_KEY_TTL_MS });

  async function authenticateApiKey(raw: string): Promise<Principal> {
    if (!isWellFormedApiKey(raw)) throw unauthorized('The API key is not valid.', 'invalid_api_key');
    const presented = hashApiKey(raw);
    const cacheKey = presented.toString('base64url');
    if (invalidKeys.has(cacheKey)) throw unauthorized('The API key is not valid, or has been revoked.', 'invalid_api_key');
    const key = await deps.db.maybeOne(sql.type(ApiKeyCredential)`
      SELECT k.id, k.user_id, k.scope, k.secret_hash,
             (k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())) AS usable,
             u.role, u.suspended_at IS NOT NULL AS suspended,
             o.id AS organization_id, k.created_by, c.suspended_at IS NOT NULL AS creator_suspended
      FROM api_keys k JOIN users u ON u.id = k.user_id
      LEFT JOIN organizations o ON o.service_user_id = k.user_id
      LEFT JOIN users c ON c.id = k.created_by
      WHERE k.secret_hash = ${sql.binary(presented)}
    `);
    if (!key || !sameHash(key.secret_hash, presented) || !key.usable) {
      invalidKeys.set(cacheKey, true);
      throw unauthorized('The API key is not valid, or has been revoked.', 'invalid_api_key');
    }
    if (key.suspended) throw suspended();
    // Read with the key on every request, like the owner's suspension: lifting it restores the key at once.
    if (key.creator_suspended) throw creatorSuspended();
    const principal: Principal = { kind: 'api_key', userId: key.user_id, role: key.role, scope: key.scope, apiKeyId: key.id };
    if (key.organization_id) principal.organizationKey = { organizationId: key.organization_id, createdBy: key.created_by };
    return principal;
  }

  return async function authenticate(ctx, options) {
    const credential = presentedCredential(ctx);
    if (credential === undefined) return undefined;
    if (looksLikeApiKey(credential)) return authenticateApiKey(credential);
    const token = await deps.verifyAccessToken(credential);
    if (deps.revocations.isRevoked(token.jti) || (token.grantId !== undefined && deps.revocations.isRevoked(token.grantId))) {
      throw unauthorized('The access token has been revoked.', 'token_revoked');
    }
    if (token.clientId && token.subject === token.clientId) {
      // An app-only token acts for no user: the request goes on as an anonymous one (public reads),
      // and a route that needs a user refuses it (route-guard.ts).
      ctx.state.appOnlyClientId = token.clientId;
      return undefined;
    }
    if (token.clientId) {
      // An OAuth app for the user who authorized it: a plain user's rights, narrowed by the token's
      // scopes. Never the user's administrator role: consenting to read:petitions must not hand an
      // app every draft on the platform.
      const user = await deps.users.byUserId(token.subject);
      if (!user) throw unauthorized('The user who authorized this app no longer exists.');
      if (user.suspended) throw suspended();
      return {
        kind: 'oauth_app',
        userId: user.id,
        role: 'user',
        scope: 'full',
        tokenId: token.jti,
        clientId: token.clientId,
        oauthScopes: token.scope,
        emailDomain: user.email_domain,
      };
    }
    const user = await deps.users.bySubject(token.issuer, token.subject);
    if (!user) throw unauthorized('No Rally user belongs to this token; log in through /v1/auth/login first.');
    if (user.suspended && !options?.suspendedMayCall) throw suspended();
    return { kind: 'user', userId: user.id, role: user.role, scope: 'full', tokenId: token.jti, emailDomain: user.email_domain };
  };
}
