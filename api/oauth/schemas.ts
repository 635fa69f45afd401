// Shapes of a user's app authorizations on the wire.
import { Type } from '@sinclair/typebox';
import { Meta } from '../http/envelopes.ts';
import { CursorQuery, LimitQuery, PaginationSchema } from '../http/pagination.ts';
import { OAUTH_SCOPES } from '../../core/vocabulary.ts';

export const OAuthScopeName = Type.Union(OAUTH_SCOPES.map((scope) => Type.Literal(scope)));

export const AppAuthorization = Type.Object({
  client_id: Type.String(),
  name: Type.String({ description: "The app's name." }),
  scopes: Type.Array(OAuthScopeName),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time', description: 'When the user last approved (more) scopes.' }),
});

export const AppAuthorizationList = Type.Object({ data: Type.Array(AppAuthorization), pagination: PaginationSchema, meta: Meta });
export const AppAuthorizationListQuery = Type.Object({ cursor: Type.Optional(CursorQuery), limit: LimitQuery() }, { additionalProperties: false });
export const AppAuthorizationParams = Type.Object({ client_id: Type.String({ minLength: 1, maxLength: 100 }) });

// Apps a developer registers through the API (/v1/oauth/apps).
const AppName = Type.String({ minLength: 1, maxLength: 100, description: 'Shown to users on the consent screen.' });
const RedirectUris = Type.Array(Type.String({ minLength: 1, maxLength: 2000 }), {
  minItems: 1,
  maxItems: 10,
  description: 'Exact URIs the app may be sent back to: https, or http on a loopback address (RFC 8252).',
});
const AppScopes = Type.Array(OAuthScopeName, { minItems: 1, maxItems: OAUTH_SCOPES.length, description: 'The most a user can grant the app.' });

export const DeveloperAppCreate = Type.Object(
  {
    name: AppName,
    redirect_uris: RedirectUris,
    scopes: Type.Optional(AppScopes),
    confidential: Type.Boolean({ default: true, description: 'A server-side app with a secret; false for apps that cannot keep one (PKCE only).' }),
  },
  { additionalProperties: false },
);
export const DeveloperAppUpdate = Type.Object(
  { name: Type.Optional(AppName), redirect_uris: Type.Optional(RedirectUris), scopes: Type.Optional(AppScopes) },
  { additionalProperties: false, minProperties: 1 },
);

export const DeveloperApp = Type.Object({
  client_id: Type.String(),
  name: Type.String(),
  redirect_uris: Type.Array(Type.String()),
  scopes: Type.Array(OAuthScopeName),
  confidential: Type.Boolean(),
  previous_secret_expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'After a rotation, until when the previous secret still works.',
  }),
  created_at: Type.String({ format: 'date-time' }),
});

export const DeveloperAppEnvelope = Type.Object({ data: DeveloperApp, meta: Meta });
const DeveloperAppWithSecret = Type.Object({
  ...DeveloperApp.properties,
  client_secret: Type.Optional(Type.String({ description: 'Shown this once; only a hash is kept. Absent for a public app.' })),
});
export const DeveloperAppWithSecretEnvelope = Type.Object({ data: DeveloperAppWithSecret, meta: Meta });
export const DeveloperAppList = Type.Object({ data: Type.Array(DeveloperApp), pagination: PaginationSchema, meta: Meta });

/** The token endpoint's error answer, as RFC 6749 5.2 words it (not a problem: OAuth clients read this shape). */
export const OAuthTokenError = Type.Object({
  error: Type.String({
    description: 'invalid_request, invalid_client, invalid_grant, unauthorized_client, unsupported_grant_type, invalid_scope or token_expired.',
  }),
  error_description: Type.String(),
});

/** POST /oauth/introspect's answer (RFC 7662 2.2): `{active: false}` alone for a token the caller may not know of. */
export const OAuthIntrospection = Type.Object({
  active: Type.Boolean({ description: 'Whether Rally would honour the token now.' }),
  client_id: Type.Optional(Type.String()),
  scope: Type.Optional(Type.String({ description: 'Space-separated scopes.' })),
  sub: Type.Optional(Type.String({ description: 'The user the token acts for; the client itself for an app-only token.' })),
  iss: Type.Optional(Type.String()),
  aud: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
  exp: Type.Optional(Type.Integer()),
  iat: Type.Optional(Type.Integer()),
  jti: Type.Optional(Type.String()),
  token_type: Type.Optional(Type.Literal('Bearer', { description: 'Present for access tokens.' })),
});

// The bodies of the client endpoints (RFC 6749 4.1.3, 6, 4.4; RFC 7009; RFC 7662), for the reference:
// the handlers read them themselves (request-body.ts), form-encoded or as a JSON object of strings.
const clientAuthentication = {
  client_id: Type.Optional(Type.String({ description: "The app's client id; omitted when it authenticates with HTTP Basic." })),
  client_secret: Type.Optional(Type.String({ description: "A confidential app's secret (client_secret_post); or send id and secret with HTTP Basic." })),
};
const TokenScope = Type.Optional(
  Type.String({
    description: 'Space-separated scopes, within those of the registration (all of them when omitted).',
    examples: ['read:petitions write:signatures'],
  }),
);

export const OAuthTokenRequest = Type.Union(
  [
    Type.Object(
      {
        grant_type: Type.Literal('authorization_code'),
        code: Type.String({ description: 'The code the authorization redirect brought back.', examples: ['Splx10BeZQQYbYS6WxSbIA0dB2kXq'] }),
        redirect_uri: Type.String({
          description: 'The redirect_uri of the authorization request, exactly.',
          examples: ['https://app.example.org/oauth/callback'],
        }),
        code_verifier: Type.String({
          minLength: 43,
          maxLength: 128,
          description: 'PKCE: the verifier whose S256 hash the authorization request sent.',
          examples: ['dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'],
        }),
        ...clientAuthentication,
      },
      { description: 'Exchange an authorization code for an access and a refresh token.' },
    ),
    Type.Object(
      {
        grant_type: Type.Literal('refresh_token'),
        refresh_token: Type.String({ description: 'The refresh token to exchange (it is rotated).' }),
        scope: TokenScope,
        ...clientAuthentication,
      },
      { description: 'Exchange a refresh token for a new token pair; 401 token_expired when it has expired.' },
    ),
    Type.Object(
      { grant_type: Type.Literal('client_credentials'), scope: TokenScope, ...clientAuthentication },
      { description: "A confidential app's own token: for its owner within their standing authorization, or for public reads." },
    ),
  ],
  { description: 'An RFC 6749 token request, by grant_type.' },
);

const TokenReference = {
  token: Type.String({ description: 'The access or refresh token.' }),
  token_type_hint: Type.Optional(
    Type.Union([Type.Literal('access_token'), Type.Literal('refresh_token')], { description: 'Which kind of token it is, if known.' }),
  ),
  ...clientAuthentication,
};
export const OAuthRevocationRequest = Type.Object(TokenReference, { description: 'An RFC 7009 revocation request.' });
export const OAuthIntrospectionRequest = Type.Object(TokenReference, { description: 'An RFC 7662 introspection request.' });
