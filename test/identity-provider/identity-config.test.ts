// The identity block of platform/config.ts: which provider the API uses and how the embedded one runs.
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../platform/config.ts';
import { PRODUCTION_SECRETS } from '../support/production-secrets.ts';

describe('configuration: identity provider', () => {
  it('defaults to the embedded provider on port 3001 with a development client', () => {
    expect(loadConfig({}).identity).to.deep.equal({
      issuer: undefined,
      clientId: 'rally-api',
      clientSecret: 'rally-development-client-secret',
      embeddedPort: 3001,
      accessTokenTtlMs: 15 * 60_000,
      refreshTokenTtlMs: 30 * 86_400_000,
      sessionIdleTtlMs: 2 * 3_600_000,
      sessionMaxTtlMs: 30 * 86_400_000,
    });
  });

  it('keeps an external issuer exactly as written, trailing slash included', () => {
    expect(loadConfig({ OIDC_ISSUER: 'https://id.example.org/' }).identity.issuer).to.equal('https://id.example.org/');
  });

  it('refuses to start in production with the development client secret', () => {
    expect(() => loadConfig(PRODUCTION_SECRETS)).to.throw(ConfigError, 'OIDC_CLIENT_SECRET');
    expect(() => loadConfig({ ...PRODUCTION_SECRETS, OIDC_CLIENT_SECRET: 'rally-development-client-secret' })).to.throw(ConfigError, 'OIDC_CLIENT_SECRET');
    expect(loadConfig({ ...PRODUCTION_SECRETS, OIDC_CLIENT_SECRET: 's3cret-of-our-own' }).identity.clientSecret).to.equal('s3cret-of-our-own');
  });

  const malformed: [string, string][] = [
    ['OIDC_ISSUER', 'id.example.org'],
    ['OIDC_ISSUER', 'ftp://id.example.org'],
    ['RALLY_IDP_PORT', '0'],
    ['RALLY_ACCESS_TOKEN_TTL', '15 minutes'],
    ['RALLY_REFRESH_TOKEN_TTL', '0d'],
    ['RALLY_SESSION_IDLE_TTL', 'two hours'],
    ['RALLY_SESSION_MAX_TTL', '30'],
  ];
  for (const [name, value] of malformed) {
    it(`stops start-up naming ${name} when it is "${value}"`, () => {
      expect(() => loadConfig({ [name]: value })).to.throw(ConfigError, name);
    });
  }
});
