// grant_type=password (OAuth 2.0 Resource Owner Password Credentials, RFC 6749 section 4.3), which oidc-provider does not ship. Rally's API is the only client:
// it takes the user's e-mail and password on its own login route and trades them here for tokens. The issuing mirrors oidc-provider's authorization_code grant
// (helpers/grant_common.js issueTokens): a Grant holds what was granted, then an access token for the API, a refresh token and an ID token are made from it.
import { errors, type FindAccount, type Provider, type ResourceServer } from 'oidc-provider';
import type { DatabasePool } from 'slonik';
import { verifyIdentityPassword } from './accounts.ts';

export const PASSWORD_GRANT_TYPE = 'password';

/** Scopes a client may ask for; the default asks for all of them. */
export const SUPPORTED_SCOPES = ['openid', 'email', 'profile', 'offline_access'] as const;
/** The ones that go into the access token: offline_access only governs the refresh token. */
export const ACCESS_TOKEN_SCOPES = ['openid', 'email', 'profile'] as const;

type PasswordGrantParams = { username?: string; password?: string; scope?: string };

function requestedScopes(scope: string | undefined): string[] {
  const scopes = [...new Set((scope ?? SUPPORTED_SCOPES.join(' ')).split(' ').filter(Boolean))];
  const unsupported = scopes.find((name) => !(SUPPORTED_SCOPES as readonly string[]).includes(name));
  if (unsupported) throw new errors.InvalidScope('requested scope is not supported', unsupported);
  // Logging in is an OpenID Connect sign-in: the caller always needs the ID token.
  if (!scopes.includes('openid')) throw new errors.InvalidScope('the openid scope is required', 'openid');
  return scopes;
}

export type PasswordGrantDependencies = {
  db: DatabasePool;
  findAccount: FindAccount;
  /** The API's identifier: the access token's audience. */
  resourceAudience: string;
  resourceServer: ResourceServer;
};

export function registerPasswordGrant(provider: Provider, deps: PasswordGrantDependencies): void {
  provider.registerGrantType<PasswordGrantParams>(
    PASSWORD_GRANT_TYPE,
    async function passwordGrant(ctx) {
      const { params, client } = ctx.oidc;
      if (!params.username || !params.password) {
        throw new errors.InvalidRequest('missing required parameter(s) (username, password)');
      }
      const scopes = requestedScopes(params.scope);

      const accountId = await verifyIdentityPassword(deps.db, params.username, params.password);
      // One answer for an unknown e-mail and a wrong password, so neither can be told apart.
      if (!accountId) throw new errors.InvalidGrant('invalid credentials');
      const account = await deps.findAccount(ctx, accountId);
      if (!account) throw new errors.InvalidGrant('invalid credentials');
      ctx.oidc.entity('Account', account);

      const scope = scopes.join(' ');
      const resourceScope = scopes.filter((name) => (ACCESS_TOKEN_SCOPES as readonly string[]).includes(name)).join(' ');
      const grant = new provider.Grant({ accountId, clientId: client.clientId });
      grant.addOIDCScope(scope);
      grant.addResourceScope(deps.resourceAudience, resourceScope);
      const grantId = await grant.save();
      ctx.oidc.entity('Grant', grant);

      const authTime = Math.floor(Date.now() / 1000);
      const accessToken = new provider.AccessToken({ accountId, client, grantId, gty: PASSWORD_GRANT_TYPE, scope: resourceScope });
      accessToken.resourceServer = new provider.ResourceServer(deps.resourceAudience, deps.resourceServer);
      ctx.oidc.entity('AccessToken', accessToken);
      const accessTokenValue = await accessToken.save();

      let refreshTokenValue: string | undefined;
      if (scopes.includes('offline_access')) {
        const refreshToken = new provider.RefreshToken({
          accountId,
          client,
          grantId,
          gty: PASSWORD_GRANT_TYPE,
          scope,
          resource: deps.resourceAudience,
          authTime,
          rotations: 0,
        });
        ctx.oidc.entity('RefreshToken', refreshToken);
        refreshTokenValue = await refreshToken.save();
      }

      const idToken = new provider.IdToken({ ...(await account.claims('id_token', scope, {}, [])), auth_time: authTime }, { ctx });
      // IdToken.payload() keeps the claims of these scopes; the typings omit the property.
      Object.assign(idToken, { scope });

      ctx.body = {
        access_token: accessTokenValue,
        expires_in: accessToken.expiration,
        id_token: await idToken.issue({ use: 'idtoken' }),
        refresh_token: refreshTokenValue,
        scope: resourceScope,
        token_type: 'Bearer',
      };
    },
    ['username', 'password', 'scope'],
  );
}
