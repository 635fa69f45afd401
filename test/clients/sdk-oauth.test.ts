// The SDK's OAuth helpers against a started Rally: an authorization request with PKCE (S256) and a
// state, the user's consent, the code from the redirect back exchanged, tokens refreshed and revoked,
// and oauthSession keeping a client's token fresh. The consent itself is the user's (test/support).
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import {
  authorizationRequest,
  codeFromCallback,
  createRallyClient,
  exchangeCode,
  OAuthError,
  oauthSession,
  refreshTokens,
  revokeToken,
  unwrap,
  type AuthorizationRequest,
  type OAuthApp,
  type Tokens,
} from '../../clients/typescript/src/index.ts';
import { approveConsent } from '../support/oauth.ts';
import { REDIRECT, startOAuthFixture, type OAuthFixture } from '../support/oauth-fixture.ts';

describe('the SDK OAuth code flow with PKCE (clients/typescript)', function () {
  this.timeout(60_000);
  let f: OAuthFixture;
  let confidential: OAuthApp;
  let publicApp: OAuthApp;
  before(async () => {
    f = await startOAuthFixture();
    confidential = { baseUrl: f.api.baseUrl, clientId: f.app.client_id, clientSecret: f.app.client_secret! };
    publicApp = { baseUrl: f.api.baseUrl, clientId: f.publicApp.client_id };
  });
  after(() => f.api.stop());

  /** The user consents in their browser; Rally redirects back to the app with this query. */
  async function redirectBack(request: AuthorizationRequest): Promise<string> {
    const params = Object.fromEntries(new URL(request.url).searchParams);
    return `${REDIRECT}?${await approveConsent(f.api.baseUrl, f.userToken, params)}`;
  }

  it('builds an authorization URL with an S256 challenge of a fresh verifier and a fresh state', async () => {
    const [first, second] = await Promise.all([1, 2].map(() => authorizationRequest(publicApp, { redirectUri: REDIRECT, scope: ['read:profile'] })));
    const query = new URL(first!.url).searchParams;
    expect(first!.url.startsWith(`${f.api.baseUrl}/oauth/authorize?`)).to.equal(true);
    expect(Object.fromEntries(query)).to.include({ response_type: 'code', client_id: f.publicApp.client_id, redirect_uri: REDIRECT, scope: 'read:profile' });
    expect(query.get('code_challenge_method')).to.equal('S256');
    expect(query.get('code_challenge')).to.equal(createHash('sha256').update(first!.codeVerifier).digest('base64url'));
    expect(first!.codeVerifier).to.match(/^[A-Za-z0-9_-]{43,128}$/);
    expect(query.get('state')).to.equal(first!.state);
    expect(second!.state).to.not.equal(first!.state);
    expect(second!.codeVerifier).to.not.equal(first!.codeVerifier);
  });

  for (const kind of ['public', 'confidential'] as const) {
    it(`completes the code flow for a ${kind} app, refreshes the pair once and revokes the grant`, async () => {
      const app = kind === 'public' ? publicApp : confidential;
      const request = await authorizationRequest(app, { redirectUri: REDIRECT, scope: 'read:profile' });
      const tokens = await exchangeCode(app, request, codeFromCallback(await redirectBack(request), request));
      expect(tokens).to.include({ token_type: 'Bearer', scope: 'read:profile' });
      expect((await f.me(tokens.access_token)).status).to.equal(200);

      const refreshed = await refreshTokens(app, tokens.refresh_token!);
      expect(refreshed.access_token).to.not.equal(tokens.access_token);
      expect((await f.me(refreshed.access_token)).status).to.equal(200);
      const reused = await refreshTokens(app, tokens.refresh_token!).catch((error: unknown) => error);
      expect(reused).to.be.instanceOf(OAuthError).with.property('error', 'invalid_grant');

      await revokeToken(app, refreshed.refresh_token!);
      await f.expectRejected(refreshed.access_token);
    });
  }

  it('refuses a redirect back with another state, and the user’s refusal, as OAuthErrors', async () => {
    const request = await authorizationRequest(publicApp, { redirectUri: REDIRECT, scope: 'read:profile' });
    const other = await authorizationRequest(publicApp, { redirectUri: REDIRECT, scope: 'read:profile' });
    const back = await redirectBack(other);
    expect(() => codeFromCallback(back, request)).to.throw(OAuthError, 'state_mismatch');

    // The redirect back after the user refused (RFC 6749 section 4.1.2.1).
    const refused = `${REDIRECT}?${new URLSearchParams({ error: 'access_denied', state: request.state })}`;
    expect(() => codeFromCallback(refused, request)).to.throw(OAuthError, 'access_denied');
  });

  it('oauthSession refreshes an expired access token for the client and revokes the grant on request', async () => {
    const request = await authorizationRequest(confidential, { redirectUri: REDIRECT, scope: 'read:profile' });
    const tokens = await exchangeCode(confidential, request, codeFromCallback(await redirectBack(request), request));
    const stored: Tokens[] = [];
    // expires_in 0: the session must refresh before the first call.
    const session = oauthSession({ ...confidential, tokens: { ...tokens, expires_in: 0 }, onTokens: (next) => stored.push(next) });
    const rally = createRallyClient({ baseUrl: f.api.baseUrl, token: session });
    unwrap(await rally.GET('/v1/users/me'));
    expect(stored).to.have.length(1);
    expect(stored[0]!.refresh_token).to.be.a('string').and.not.equal(tokens.refresh_token);
    expect(session.current().access_token).to.equal(stored[0]!.access_token);

    await session.revoke();
    await f.expectRejected(stored[0]!.access_token);
  });
});
