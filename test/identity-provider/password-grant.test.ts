// Logging in at the embedded identity provider: discovery, the password grant's tokens and errors,
// and the whole round trip through openid-client, the library the API uses.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { createIdentityAccount } from '../../identity-provider/accounts.ts';
import { testEnvironment } from '../support/environment.ts';
import { json } from '../support/http.ts';
import { AUDIENCE, CLIENT, freePort, login, startProvider, type RunningProvider } from './provider-process.ts';

describe('embedded identity provider: password grant', function () {
  this.timeout(60_000);
  const email = `ada.${randomBytes(4).toString('hex')}@example.org`;
  const password = 'correct horse battery staple';
  let accountId: string;
  let provider: RunningProvider;

  before(async () => {
    accountId = await createIdentityAccount(testEnvironment().db, { email, password, displayName: 'Ada Lovelace' });
    provider = await startProvider(await freePort());
  });
  after(() => provider.stop());

  it('publishes discovery with the token, revocation and JWKS endpoints', async () => {
    const response = await fetch(`${provider.issuer}/.well-known/openid-configuration`);
    expect(response.status).to.equal(200);
    const metadata = await json(response);
    expect(metadata).to.include({
      issuer: provider.issuer,
      token_endpoint: `${provider.issuer}/token`,
      jwks_uri: `${provider.issuer}/jwks`,
      revocation_endpoint: `${provider.issuer}/token/revocation`,
    });
    expect(metadata.grant_types_supported).to.have.members(['authorization_code', 'password', 'refresh_token']);
    const jwks = await json(await fetch(metadata.jwks_uri));
    expect(jwks.keys).to.have.length.greaterThan(0);
    for (const key of jwks.keys) expect(key).to.not.have.any.keys('d', 'p', 'q', 'dp', 'dq', 'qi');
  });

  it('trades the right password for an ID token, a JWT access token for the API and a refresh token', async () => {
    const response = await login(provider.issuer, email.toUpperCase(), password);
    expect(response.status).to.equal(200);
    const body = await json(response);
    expect(body).to.include({ token_type: 'Bearer', expires_in: 900, scope: 'openid email profile' });
    expect(body.refresh_token).to.be.a('string').and.not.be.empty;

    const jwks = createRemoteJWKSet(new URL(`${provider.issuer}/jwks`));
    expect(decodeProtectedHeader(body.access_token).typ).to.equal('at+jwt');
    const { payload: access } = await jwtVerify(body.access_token, jwks, { issuer: provider.issuer, audience: AUDIENCE });
    expect(access).to.include({ iss: provider.issuer, sub: accountId, aud: AUDIENCE, scope: 'openid email profile' });
    expect(access.exp! - access.iat!).to.equal(900);
    expect(access.jti).to.be.a('string').and.not.be.empty;

    const { payload: identity } = await jwtVerify(body.id_token, jwks, { issuer: provider.issuer, audience: CLIENT.client_id });
    expect(identity).to.include({ sub: accountId, email, email_verified: false, name: 'Ada Lovelace' });
  });

  it('issues no refresh token when offline_access is not asked for', async () => {
    const body = await json(await login(provider.issuer, email, password, 'openid email'));
    expect(body.access_token).to.be.a('string');
    expect(body).to.not.have.property('refresh_token');
  });

  it('answers a wrong password and an unknown e-mail with the same invalid_grant', async () => {
    const wrongPassword = await login(provider.issuer, email, 'not the password');
    const unknownEmail = await login(provider.issuer, `nobody.${randomBytes(4).toString('hex')}@example.org`, password);
    expect([wrongPassword.status, unknownEmail.status]).to.deep.equal([400, 400]);
    const [first, second] = [await json(wrongPassword), await json(unknownEmail)];
    expect(first).to.deep.equal(second);
    expect(first.error).to.equal('invalid_grant');
  });

  it('refuses a wrong client secret, scopes it does not know and a login without openid', async () => {
    const badClient = await fetch(`${provider.issuer}/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'password', username: email, password, client_id: CLIENT.client_id, client_secret: 'wrong' }),
    });
    expect([badClient.status, (await json(badClient)).error]).to.deep.equal([401, 'invalid_client']);
    expect((await json(await login(provider.issuer, email, password, 'openid admin'))).error).to.equal('invalid_scope');
    expect((await json(await login(provider.issuer, email, password, 'email'))).error).to.equal('invalid_scope');
  });

  it('works through openid-client: password grant, refresh, revocation', async () => {
    const config = await oidc.discovery(new URL(provider.issuer), CLIENT.client_id, CLIENT.client_secret, undefined, {
      execute: [oidc.allowInsecureRequests],
    });
    const tokens = await oidc.genericGrantRequest(config, 'password', {
      username: email,
      password,
      scope: 'openid email profile offline_access',
    });
    expect(tokens.claims()).to.include({ sub: accountId, email });
    expect(tokens.refresh_token).to.be.a('string');

    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.access_token).to.be.a('string').and.not.equal(tokens.access_token);
    expect(refreshed.claims()?.sub).to.equal(accountId);

    await oidc.tokenRevocation(config, refreshed.refresh_token!, { token_type_hint: 'refresh_token' });
    const failure = await oidc.refreshTokenGrant(config, refreshed.refresh_token!).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).to.be.instanceOf(oidc.ResponseBodyError);
    expect((failure as oidc.ResponseBodyError).error).to.equal('invalid_grant');

    const wrong = await oidc.genericGrantRequest(config, 'password', { username: email, password: 'nope', scope: 'openid' }).catch((error: unknown) => error);
    expect((wrong as oidc.ResponseBodyError).error).to.equal('invalid_grant');
  });
});
