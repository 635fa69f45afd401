// Who may act, and for how long: the identity provider, its tokens, API keys and the other links
// Rally hands out.

import { Type, type StaticDecode } from '@sinclair/typebox';
import type { Config } from './types.ts';
import { duration, integer, text, url } from './variables.ts';

// Public on purpose: it only lets a development API talk to its own embedded provider. Production
// must set its own (platform/config/checks.ts).
export const DEVELOPMENT_CLIENT_SECRET = 'rally-development-client-secret';

export const identityVariables = {
  OIDC_ISSUER: Type.Optional(
    url('http-url', {
      // Issuer identifiers are compared character for character, so a trailing slash stays.
      asWritten: true,
      defaultText: 'unset: the embedded provider at `http://127.0.0.1:$RALLY_IDP_PORT`',
      description: 'issuer URL of an external OpenID Connect provider, compared exactly as written (trailing slash included)',
    }),
  ),
  OIDC_CLIENT_ID: text({ default: 'rally-api', description: "the API's client at the provider" }),
  OIDC_CLIENT_SECRET: text({
    default: DEVELOPMENT_CLIENT_SECRET,
    description: "that client's secret. The default is public, and it is refused when `NODE_ENV=production`.",
  }),
  RALLY_IDP_PORT: integer(65_535, { default: 3001, description: 'port of the embedded provider (loopback only)' }),
  RALLY_ACCESS_TOKEN_TTL: duration('RALLY_ACCESS_TOKEN_TTL', {
    default: '15m',
    description: 'lifetime of access and ID tokens issued by the embedded provider and by `rally loadtest users`',
  }),
  RALLY_REFRESH_TOKEN_TTL: duration('RALLY_REFRESH_TOKEN_TTL', {
    default: '30d',
    description:
      'refresh-token lifetime in the embedded provider, counted from login. Rally also records each refresh ' +
      "token with this lifetime so it can answer `token_expired`, so match it to an external provider's " +
      'setting.',
  }),
  RALLY_SESSION_IDLE_TTL: duration('RALLY_SESSION_IDLE_TTL', {
    default: '2h',
    description: 'a browser session (the cookie of the petition pages) ends after this long without a request',
  }),
  RALLY_SESSION_MAX_TTL: duration('RALLY_SESSION_MAX_TTL', {
    default: '30d',
    description: 'a browser session ends this long after its login, however active it is',
  }),
  RALLY_SENSITIVE_ACTION_MAX_AGE: duration('RALLY_SENSITIVE_ACTION_MAX_AGE', {
    default: '15m',
    description: "deleting one's account needs a login at most this old (else 401 `reauthentication_required`)",
  }),
  RALLY_KEY_GRACE_PERIOD: duration('RALLY_KEY_GRACE_PERIOD', { default: '24h', description: 'how long a rotated API key stays valid' }),
  RALLY_RESPONSE_TOKEN_TTL: duration('RALLY_RESPONSE_TOKEN_TTL', { default: '30d', description: 'validity of a decision-maker portal token' }),
  RALLY_INVITATION_TTL: duration('RALLY_INVITATION_TTL', {
    default: '7d',
    description: 'validity of an organization invitation (one reminder at three quarters)',
  }),
};

type Values = StaticDecode<ReturnType<typeof Type.Object<typeof identityVariables>>>;

export function identitySettings(values: Values) {
  return {
    identity: Object.freeze({
      issuer: values.OIDC_ISSUER,
      clientId: values.OIDC_CLIENT_ID,
      clientSecret: values.OIDC_CLIENT_SECRET,
      embeddedPort: values.RALLY_IDP_PORT,
      accessTokenTtlMs: values.RALLY_ACCESS_TOKEN_TTL,
      refreshTokenTtlMs: values.RALLY_REFRESH_TOKEN_TTL,
      sessionIdleTtlMs: values.RALLY_SESSION_IDLE_TTL,
      sessionMaxTtlMs: values.RALLY_SESSION_MAX_TTL,
    }),
    keyGracePeriodMs: values.RALLY_KEY_GRACE_PERIOD,
    sensitiveActionMaxAgeMs: values.RALLY_SENSITIVE_ACTION_MAX_AGE,
    responseTokenTtlMs: values.RALLY_RESPONSE_TOKEN_TTL,
    invitationTtlMs: values.RALLY_INVITATION_TTL,
  } satisfies Partial<Config>;
}
