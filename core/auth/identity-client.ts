// Talks to the OpenID Connect provider that checks passwords (the embedded one or any standard
// provider named by OIDC_ISSUER): discovery once, then its token and revocation endpoints.
import * as oidc from 'openid-client';
import { DomainError, Unauthenticated, Unavailable } from '../errors/domain-error.ts';

export type IdentityClientSettings = { issuer: string; clientId: string; clientSecret: string };

export type TokenSet = {
  idToken: string;
  accessToken: string;
  refreshToken: string | undefined;
  expiresIn: number;
  tokenType: string;
  /** The ID token's claims, already validated by openid-client. */
  claims: { sub: string; email?: string; name?: string; email_verified?: boolean } | undefined;
};

/** The parameters of one authorization request (a browser login); `extra` may ask the provider for its sign-up screen. */
export type AuthorizationRequest = { redirectUri: string; state: string; nonce: string; codeChallenge: string; extra?: Record<string, string> };

export type IdentityClient = {
  passwordGrant(email: string, password: string): Promise<TokenSet>;
  /** Where to send a browser to log in: the provider's authorization endpoint (code flow, PKCE S256). */
  authorizationUrl(request: AuthorizationRequest): Promise<URL>;
  /** Finishes a browser login: checks state, nonce and PKCE, and trades the code for tokens. */
  exchangeCode(callbackUrl: URL, checks: { state: string; nonce: string; codeVerifier: string }): Promise<TokenSet>;
  refresh(refreshToken: string): Promise<TokenSet>;
  revoke(token: string, hint: 'access_token' | 'refresh_token'): Promise<void>;
  jwksUri(): Promise<string>;
  issuer(): Promise<string>;
};

function toTokenSet(response: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers): TokenSet {
  const claims = response.claims();
  return {
    idToken: response.id_token ?? '',
    accessToken: response.access_token,
    refreshToken: response.refresh_token,
    expiresIn: response.expires_in ?? 0,
    tokenType: response.token_type === 'bearer' ? 'Bearer' : response.token_type,
    claims: claims
      ? {
          sub: claims.sub,
          email: claims.email as string | undefined,
          name: claims.name as string | undefined,
          email_verified: claims.email_verified as boolean | undefined,
        }
      : undefined,
  };
}

/** invalid_grant means wrong credentials or a dead refresh token; anything else is the provider's fault. */
function translate(error: unknown): never {
  if (error instanceof oidc.ResponseBodyError && (error.error === 'invalid_grant' || error.error === 'invalid_request')) {
    throw new Unauthenticated('The credentials are not valid.', { code: 'invalid_credentials' });
  }
  if (error instanceof DomainError) throw error;
  throw new Unavailable('The identity provider cannot be reached right now.', { cause: error, code: 'identity_provider_unavailable' });
}

export function createIdentityClient(settings: IdentityClientSettings): IdentityClient {
  let configuration: Promise<oidc.Configuration> | undefined;
  const insecure = new URL(settings.issuer).protocol === 'http:';

  function discover(): Promise<oidc.Configuration> {
    configuration ??= oidc
      .discovery(
        new URL(settings.issuer),
        settings.clientId,
        undefined,
        oidc.ClientSecretPost(settings.clientSecret),
        insecure ? { execute: [oidc.allowInsecureRequests] } : undefined,
      )
      .catch((error: unknown) => {
        configuration = undefined; // try again on the next call instead of caching the failure
        throw error;
      });
    return configuration;
  }

  return {
    async passwordGrant(email, password) {
      const config = await discover().catch(translate);
      const response = await oidc
        .genericGrantRequest(config, 'password', { username: email, password, scope: 'openid email profile offline_access' })
        .catch(translate);
      return toTokenSet(response);
    },
    async authorizationUrl(request) {
      const config = await discover().catch(translate);
      return oidc.buildAuthorizationUrl(config, {
        redirect_uri: request.redirectUri,
        scope: 'openid email profile',
        response_type: 'code',
        state: request.state,
        nonce: request.nonce,
        code_challenge: request.codeChallenge,
        code_challenge_method: 'S256',
        ...request.extra,
      });
    },
    async exchangeCode(callbackUrl, checks) {
      const config = await discover().catch(translate);
      const response = await oidc
        .authorizationCodeGrant(config, callbackUrl, {
          expectedState: checks.state,
          expectedNonce: checks.nonce,
          pkceCodeVerifier: checks.codeVerifier,
          idTokenExpected: true,
        })
        .catch((error: unknown) => {
          // An unreachable provider is its fault; anything else (a refused, replayed or forged callback:
          // wrong state, nonce or verifier, a used code) is a login to start again.
          if (error instanceof TypeError || error instanceof DomainError) return translate(error);
          throw new Unauthenticated('The login could not be completed; please log in again.', { code: 'login_failed', cause: error });
        });
      return toTokenSet(response);
    },
    async refresh(refreshToken) {
      const config = await discover().catch(translate);
      return toTokenSet(await oidc.refreshTokenGrant(config, refreshToken).catch(translate));
    },
    async revoke(token, hint) {
      const config = await discover().catch(translate);
      await oidc.tokenRevocation(config, token, { token_type_hint: hint }).catch(translate);
    },
    async jwksUri() {
      const config = await discover().catch(translate);
      const uri = config.serverMetadata().jwks_uri;
      if (!uri) throw new Unavailable('The identity provider publishes no signing keys.');
      return uri;
    },
    async issuer() {
      return (await discover().catch(translate)).serverMetadata().issuer;
    },
  };
}
