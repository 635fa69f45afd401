// The consent screen's hygiene (issue 42, finding 6 and 10d): its answer counts only from Rally's own page and from the account it was shown to; logging out of
// Rally ends the authorization server's session and clears its cookies; those cookies take __Host- and Secure whenever PUBLIC_URL is https, even when the
// request reached Rally over plain http; and the screen says who registered the app.
import { expect } from 'chai';
import { startBrowserSession } from '../../core/browser-sessions/sessions.ts';
import { testEnvironment } from '../support/environment.ts';
import { json } from '../support/http.ts';
import { bearer, createTestUser, login } from '../support/identity.ts';
import { authorize, browserCookiesOf, consentFormActionOf, decide, registerApp } from '../support/oauth.ts';
import { pkce, REDIRECT, startOAuthFixture, type OAuthFixture } from '../support/oauth-fixture.ts';
import { PUBLIC_URL, startApi } from '../support/processes.ts';

const PROVIDER_COOKIES = ['rally_oauth_session', 'rally_oauth_interaction', 'rally_oauth_resume'];
const LIFETIMES = { idleTtlMs: 3_600_000, maxTtlMs: 86_400_000 };

describe('OAuth consent screen hygiene', function () {
  this.timeout(90_000);
  let f: OAuthFixture;
  before(async () => {
    f = await startOAuthFixture();
  });
  after(() => f.api.stop());

  /** A Rally login in a browser, as the Cookie header of that browser. */
  const rallyLogin = async (userId: string) => `rally_session=${await startBrowserSession(testEnvironment().db, userId, LIFETIMES)}`;

  /** An authorization request of an app of its own (the operator's), so that no earlier consent skips the screen. */
  async function freshRequest() {
    const app = await registerApp({ name: 'Leaflet Printer', redirectUris: [REDIRECT], scopes: 'read:profile' });
    return f.request({ client_id: app.client_id }).params;
  }

  /** The consent screen shown to a browser logged in to Rally (no Bearer): the form's action and the browser's cookies after it. */
  async function screenForLogin(session: string) {
    const page = await fetch(`${f.api.baseUrl}/oauth/authorize?${new URLSearchParams(await freshRequest())}`, {
      headers: { cookie: session, accept: 'text/html' },
      redirect: 'manual',
    });
    expect(page.status).to.equal(200);
    return { page, action: consentFormActionOf(await page.text()), cookie: browserCookiesOf(page, session)! };
  }

  it("answers the consent form only when it comes from Rally's own page (Origin, Sec-Fetch-Site)", async () => {
    const page = await authorize(f.api.baseUrl, f.userToken, await freshRequest());
    const action = consentFormActionOf(await page.text());
    const as = { cookie: browserCookiesOf(page), token: f.userToken };
    const foreign: Record<string, string>[] = [
      { origin: 'http://evil.test' },
      { origin: 'null', 'sec-fetch-site': 'cross-site' },
      { origin: PUBLIC_URL, 'sec-fetch-site': 'same-site' },
      { origin: '' },
    ];
    for (const headers of foreign) {
      const refused = await decide(f.api.baseUrl, action, 'approve', { ...as, headers });
      expect(refused.status, JSON.stringify(headers)).to.equal(403);
      expect(refused.headers.get('content-type')).to.match(/^text\/html/);
      expect(refused.headers.get('location')).to.equal(null);
    }
    // Refusals use nothing up: the screen's own answer still goes back to the app.
    const approved = await decide(f.api.baseUrl, action, 'approve', { ...as, headers: { origin: 'null', 'sec-fetch-site': 'same-origin' } });
    expect(approved.status).to.equal(302);
    expect(new URL(approved.headers.get('location')!).searchParams.get('code')).to.be.a('string');
  });

  it('takes the answer only from the account the screen was shown to, by its Bearer or its Rally login', async () => {
    const stranger = await createTestUser();
    const strangerToken = (await login(f.api.baseUrl, stranger)).accessToken;
    const page = await authorize(f.api.baseUrl, f.userToken, await freshRequest());
    const action = consentFormActionOf(await page.text());
    const cookie = browserCookiesOf(page)!;
    for (const as of [{ cookie }, { cookie, token: strangerToken }, { cookie: `${cookie}; ${await rallyLogin(stranger.id)}` }]) {
      const refused = await decide(f.api.baseUrl, action, 'deny', as);
      expect(refused.status, JSON.stringify(as)).to.equal(403);
      expect(await refused.text()).to.include('another account');
    }
    expect((await decide(f.api.baseUrl, action, 'approve', { cookie, token: f.userToken })).status).to.equal(302);

    // Shown to a browser's Rally login: another Rally login in that browser cannot answer it, the same one can.
    const screen = await screenForLogin(await rallyLogin(f.user.id));
    const switched = screen.cookie.replace(/rally_session=[^;]+/, await rallyLogin(stranger.id));
    expect((await decide(f.api.baseUrl, screen.action, 'approve', { cookie: switched })).status).to.equal(403);
    const approved = await decide(f.api.baseUrl, screen.action, 'approve', { cookie: screen.cookie });
    expect(approved.status).to.equal(302);
    expect(new URL(approved.headers.get('location')!).searchParams.get('code')).to.be.a('string');
  });

  it("POST /logout ends the authorization server's session and clears its cookies: the open screen is dead", async () => {
    const session = await rallyLogin(f.user.id);
    const screen = await screenForLogin(session);
    const held = PROVIDER_COOKIES.filter((name) => screen.cookie.includes(`${name}=`));
    expect(held, 'the screen set the provider cookies').to.have.members(PROVIDER_COOKIES);
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(await (await fetch(`${f.api.baseUrl}/account`, { headers: { cookie: session } })).text())![1]!;
    const logout = await fetch(`${f.api.baseUrl}/logout`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: screen.cookie, origin: PUBLIC_URL, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf_token: csrf }).toString(),
    });
    expect(logout.status).to.equal(303);
    const cleared = logout.headers.getSetCookie().filter((cookie) => /;\s*Max-Age=0/i.test(cookie));
    for (const name of [...PROVIDER_COOKIES, ...PROVIDER_COOKIES.map((base) => `${base}.sig`)]) {
      expect(
        cleared.some((cookie) => cookie.startsWith(`${name}=;`) && /;\s*Path=\/(;|$)/i.test(cookie)),
        name,
      ).to.equal(true);
    }
    // The same person logs in again in this browser, which still holds the old provider cookies (a
    // browser that kept them): the screen opened before the logout answers nothing.
    const again = screen.cookie.replace(/rally_session=[^;]+/, await rallyLogin(f.user.id));
    const stale = await decide(f.api.baseUrl, screen.action, 'approve', { cookie: again });
    expect(stale.status).to.equal(400);
    expect(stale.headers.get('location')).to.equal(null);
  });

  it('names who registered the app: the verified developer and their address domain, or the operators', async () => {
    const developer = await createTestUser({ name: 'Grace Hopper' });
    const created = await fetch(`${f.api.baseUrl}/v1/oauth/apps`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer((await login(f.api.baseUrl, developer)).accessToken) },
      body: JSON.stringify({ name: 'Rally Route Planner', redirect_uris: [REDIRECT], scopes: ['read:profile'] }),
    });
    expect(created.status).to.equal(201);
    const { client_id } = (await json(created)).data;
    const byDeveloper = await (await authorize(f.api.baseUrl, f.userToken, f.request({ client_id }).params)).text();
    expect(byDeveloper).to.include('Registered by <strong>Grace Hopper</strong>, a Rally user with a verified email address at example.test, not by Rally.');
    const byOperator = await (await authorize(f.api.baseUrl, f.userToken, await freshRequest())).text();
    expect(byOperator).to.include('Registered by the operators of this Rally site.');
  });
});

describe('OAuth server cookies when PUBLIC_URL is https', function () {
  this.timeout(90_000);

  it('take __Host- and Secure on Path=/ even for a request that reached Rally over plain http, and the flow completes', async () => {
    const origin = 'https://rally.test';
    const api = await startApi({ PUBLIC_URL: origin });
    try {
      // Logged in to Rally in a browser (an access token of the test's provider names the http origin as its audience).
      const user = await createTestUser();
      const session = `__Host-rally_session=${await startBrowserSession(testEnvironment().db, user.id, LIFETIMES)}`;
      const app = await registerApp({ redirectUris: [REDIRECT], scopes: 'read:profile' });
      const params = {
        client_id: app.client_id,
        redirect_uri: REDIRECT,
        response_type: 'code',
        state: 's',
        scope: 'read:profile',
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
      };
      const page = await fetch(`${api.baseUrl}/oauth/authorize?${new URLSearchParams(params)}`, {
        headers: { cookie: session, accept: 'text/html' },
        redirect: 'manual',
      });
      expect(page.status).to.equal(200);
      const set = page.headers.getSetCookie();
      for (const name of PROVIDER_COOKIES) {
        const cookie = set.find((value) => value.startsWith(`__Host-${name}=`));
        expect(cookie, name).to.be.a('string');
        expect(cookie!)
          .to.match(/;\s*secure/i)
          .and.match(/;\s*path=\/(;|$)/i)
          .and.match(/;\s*httponly/i)
          .and.match(/;\s*samesite=lax/i);
        expect(cookie!).to.not.match(/;\s*domain=/i);
      }
      expect(set.filter((value) => PROVIDER_COOKIES.some((name) => value.startsWith(`${name}=`)))).to.deep.equal([]);
      const approved = await decide(api.baseUrl, consentFormActionOf(await page.text()), 'approve', {
        cookie: browserCookiesOf(page, session),
        headers: { origin },
      });
      expect(approved.status).to.equal(302);
      expect(new URL(approved.headers.get('location')!).searchParams.get('code')).to.be.a('string');
    } finally {
      await api.stop();
    }
  });
});
