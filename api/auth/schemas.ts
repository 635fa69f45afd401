// Request and response shapes of /v1/auth/*.
import { Type } from '@sinclair/typebox';

export const LoginBody = Type.Object(
  { email: Type.String({ format: 'email', maxLength: 320 }), password: Type.String({ minLength: 1, maxLength: 1024 }) },
  { additionalProperties: false },
);

export const RefreshBody = Type.Object({ refresh_token: Type.String({ minLength: 1, maxLength: 4096 }) }, { additionalProperties: false });

export const RevokeBody = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 8192 }),
    token_type_hint: Type.Optional(Type.Union([Type.Literal('access_token'), Type.Literal('refresh_token')])),
  },
  { additionalProperties: false },
);

export const TokenPair = Type.Object({
  token: Type.String({ description: 'The ID token (JWT).' }),
  access_token: Type.String({ description: 'A JWT; send it as Authorization: Bearer.' }),
  refresh_token: Type.String(),
  expires_in: Type.Integer({ description: 'Seconds until the access token expires.' }),
  token_type: Type.String(),
});

export const TokenPairEnvelope = Type.Object({
  data: TokenPair,
  meta: Type.Object({ request_id: Type.String(), timestamp: Type.String({ format: 'date-time' }) }),
});
