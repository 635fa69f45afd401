// One API, one user and two registered apps (a confidential one owned by the user, a public one),
// with the steps OAuth tests repeat: an authorization request with PKCE, a code, tokens.
import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { json } from './http.ts';
import { bearer, createTestUser, login, type TestUser } from './identity.ts';
import { approveConsent, registerApp, tokenRequest, type RegisteredApp } from './oauth.ts';
import { startApi, type RunningApi } from './processes.ts';

export const REDIRECT = 'http://127.0.0.1:8766/callback';

export function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export type OAuthFixture = Awaited<ReturnType<typeof startOAuthFixture>>;

export async function startOAuthFixture() {
  const api: RunningApi = await startApi();
  const user: TestUser = await createTestUser();
  const userToken = (await login(api.baseUrl, user)).accessToken;
  const [app, publicApp]: RegisteredApp[] = await Promise.all([
    registerApp({ redirectUris: [REDIRECT], scopes: 'read:profile write:petitions read:petitions', confidential: true, ownerEmail: user.email }),
    registerApp({ name: 'Phone App', redirectUris: [REDIRECT], scopes: 'read:profile' }),
  ]);
  const basic = (): [string, string] => [app!.client_id, app!.client_secret!];
  const me = (token: string) => fetch(`${api.baseUrl}/v1/users/me`, { headers: bearer(token) });
  const request = (overrides: Record<string, string> = {}) => {
    const { verifier, challenge } = pkce();
    return {
      verifier,
      params: {
        client_id: app!.client_id,
        redirect_uri: REDIRECT,
        response_type: 'code',
        state: 'st-1',
        scope: 'read:profile',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        ...overrides,
      },
    };
  };
  async function codeFor(overrides: Record<string, string> = {}) {
    const { verifier, params } = request(overrides);
    const query = await approveConsent(api.baseUrl, userToken, params);
    return { code: query.get('code')!, verifier, state: query.get('state') };
  }
  async function tokensFor(scope = 'read:profile') {
    const { code, verifier } = await codeFor({ scope });
    const response = await tokenRequest(
      api.baseUrl,
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier },
      { basic: basic() },
    );
    expect(response.status).to.equal(200);
    return json(response);
  }
  /** Revocation reaches every API process by NOTIFY: give it a moment. */
  async function expectRejected(token: string) {
    for (let attempt = 0; attempt < 40; attempt++) {
      if ((await me(token)).status === 401) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect.fail('the token still works');
  }
  return { api, user, userToken, app: app!, publicApp: publicApp!, basic, me, request, codeFor, tokensFor, expectRejected };
}
