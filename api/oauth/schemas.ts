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

/** The token endpoint's error answer, as RFC 6749 5.2 words it (not a problem: OAuth clients read this shape). */
export const OAuthTokenError = Type.Object({
  error: Type.String({
    description: 'invalid_request, invalid_client, invalid_grant, unauthorized_client, unsupported_grant_type, invalid_scope or token_expired.',
  }),
  error_description: Type.String(),
});
