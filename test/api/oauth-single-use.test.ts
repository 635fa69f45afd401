// Issue 42, finding 5: a code or refresh token presented by many token requests at once gets tokens
// once; every other request is invalid_grant (never a 500) and, as for a replay one after the other,
// the grant ends: the tokens the winner got stop working too.
import { expect } from 'chai';
import { json } from '../support/http.ts';
import { tokenRequest } from '../support/oauth.ts';
import { REDIRECT, startOAuthFixture, type OAuthFixture } from '../support/oauth-fixture.ts';

const AT_ONCE = 20;

describe('single use of OAuth codes and refresh tokens under concurrent requests', function () {
  this.timeout(120_000);
  let f: OAuthFixture;
  before(async () => {
    f = await startOAuthFixture();
  });
  after(() => f.api.stop());

  /** The same token request AT_ONCE times at once; the one that got tokens and the others' answers. */
  async function allAtOnce(body: Record<string, string>) {
    const responses = await Promise.all(Array.from({ length: AT_ONCE }, () => tokenRequest(f.api.baseUrl, body, { basic: f.basic() })));
    const answers = await Promise.all(responses.map(async (response) => ({ status: response.status, body: await json(response) })));
    const winners = answers.filter((answer) => answer.status === 200);
    expect(winners, `exactly one of ${AT_ONCE} requests gets tokens`).to.have.length(1);
    const losers = answers.filter((answer) => answer.status !== 200).map((answer) => `${answer.status} ${answer.body.error}`);
    expect(losers, 'every other request is a replay').to.deep.equal(Array(AT_ONCE - 1).fill('400 invalid_grant'));
    return winners[0]!.body as { access_token: string; refresh_token: string };
  }

  async function expectFamilyEnded(winner: { access_token: string; refresh_token: string }) {
    await f.expectRejected(winner.access_token);
    const refreshed = await tokenRequest(f.api.baseUrl, { grant_type: 'refresh_token', refresh_token: winner.refresh_token }, { basic: f.basic() });
    expect(refreshed.status, 'the refresh token the winner got').to.equal(400);
    expect((await json(refreshed)).error).to.equal('invalid_grant');
  }

  it('exchanges one authorization code once when 20 exchanges arrive at once, and ends its grant', async () => {
    const { code, verifier } = await f.codeFor();
    const winner = await allAtOnce({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier });
    await expectFamilyEnded(winner);
  });

  it('refreshes with one refresh token once when 20 refreshes arrive at once, and revokes its family', async () => {
    const first = await f.tokensFor();
    expect((await f.me(first.access_token)).status).to.equal(200);
    const winner = await allAtOnce({ grant_type: 'refresh_token', refresh_token: first.refresh_token });
    await expectFamilyEnded(winner);
    await f.expectRejected(first.access_token);
  });
});
