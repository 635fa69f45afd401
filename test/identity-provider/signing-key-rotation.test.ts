// Issue 42, finding 8: the identity provider's signing key rotates like the app-token keys (the worker's
// schedule runs core/auth/signing-key-rotation.ts; called here directly). Published before it signs,
// the replaced key kept until its tokens could have expired, then withdrawn.
import { expect } from 'chai';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { IDENTITY_SIGNING_KEYS } from '../../core/auth/rotating-signing-keys.ts';
import { rotateSigningKeyIfDue, type KeyRotationPolicy } from '../../core/auth/signing-key-rotation.ts';
import { loadConfig } from '../../platform/config.ts';
import { testEnvironment } from '../support/environment.ts';
import { json } from '../support/http.ts';
import { bearer, createTestUser, type TestUser } from '../support/identity.ts';
import { PUBLIC_URL, startApi, type RunningApi } from '../support/processes.ts';

const HOUR_MS = 3_600_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const kidOf = (token: string) => String(decodeProtectedHeader(token).kid);
type Tokens = { access_token: string; id_token: string; refresh_token: string };

describe('rotating the embedded identity provider’s signing key', function () {
  this.timeout(120_000);
  const config = loadConfig({});
  let issuer: string;
  let api: RunningApi;
  let user: TestUser;

  before(async () => {
    issuer = `http://127.0.0.1:${testEnvironment().identityProviderPort}`;
    [api, user] = await Promise.all([startApi(), createTestUser()]);
  });
  after(() => api?.stop());

  const rotate = (policy: KeyRotationPolicy) =>
    rotateSigningKeyIfDue(testEnvironment().db, IDENTITY_SIGNING_KEYS, { encryptionKey: config.encryptionKey, policy });
  const publishedKids = async () => ((await json(await fetch(`${issuer}/jwks`))).keys as { kid: string }[]).map((key) => key.kid);
  const statusAtApi = async (token: string) => (await fetch(`${api.baseUrl}/v1/users/me`, { headers: bearer(token) })).status;
  /** A login at the provider's token endpoint, as the API makes it. */
  async function logIn(): Promise<Tokens> {
    const { clientId, clientSecret } = config.identity;
    const body = { client_id: clientId, client_secret: clientSecret, grant_type: 'password', username: user.email, password: user.password };
    const response = await fetch(`${issuer}/token`, { method: 'POST', body: new URLSearchParams({ ...body, scope: 'openid email profile offline_access' }) });
    expect(response.status).to.equal(200);
    return json(response);
  }
  /** Verified with the keys published now, by a verifier that has never cached any. */
  async function verifiesAfresh(token: string): Promise<boolean> {
    const jwks = createRemoteJWKSet(new URL(`${issuer}/jwks`));
    return jwtVerify(token, jwks, { issuer, audience: PUBLIC_URL }).then(
      () => true,
      () => false,
    );
  }
  /** Keys reach the provider by NOTIFY: give it a moment. */
  async function eventually(check: () => Promise<boolean>, what: string) {
    for (let attempt = 0; attempt < 60; attempt++) {
      if (await check()) return;
      await sleep(50);
    }
    expect.fail(what);
  }

  it('publishes the next key before it signs, verifies the replaced key’s tokens until they expire, then withdraws it', async () => {
    const first = await logIn();
    const oldKid = kidOf(first.access_token);
    expect(kidOf(first.id_token)).to.equal(oldKid);

    const { created } = await rotate({ rotateAfterMs: 0, publishLeadMs: 8_000, retainAfterReplacedMs: HOUR_MS });
    expect(created, 'a rotation that is due makes a key').to.not.equal(null);
    const newKid = created!.kid;
    const signsFrom = Date.parse(created!.signsFrom);
    await eventually(async () => (await publishedKids()).includes(newKid), 'the next key published');
    expect(await publishedKids()).to.include.members([oldKid, newKid]);
    // The API fetches the provider's keys at its first verification: now, before the next key signs.
    expect(await statusAtApi(first.access_token)).to.equal(200);
    const pending = await logIn();
    expect(Date.now(), 'still before the next key signs').to.be.below(signsFrom - 1_000);
    expect([kidOf(pending.access_token), kidOf(pending.id_token)], 'published, not yet signing').to.deep.equal([oldKid, oldKid]);

    await sleep(signsFrom - Date.now() + 200);
    const after = await logIn();
    expect([kidOf(after.access_token), kidOf(after.id_token)], 'the next key signs from signs_from on').to.deep.equal([newKid, newKid]);
    expect(await statusAtApi(after.access_token), 'verified with the keys the API fetched before this one signed').to.equal(200);
    expect(await statusAtApi(pending.access_token), 'the replaced key still verifies').to.equal(200);
    expect(await verifiesAfresh(pending.access_token)).to.equal(true);

    // Once its tokens could all have expired, the replaced key is dropped; no second key is made meanwhile.
    const later = await rotate({ rotateAfterMs: 30 * 24 * HOUR_MS, publishLeadMs: HOUR_MS, retainAfterReplacedMs: 100 });
    expect(later.created, 'no rotation while the newest key is young').to.equal(null);
    expect(later.dropped).to.include(oldKid).and.not.include(newKid);
    await eventually(async () => !(await publishedKids()).includes(oldKid), 'the replaced key withdrawn');
    expect(await verifiesAfresh(pending.access_token), 'a token of the dropped key').to.equal(false);
    expect(await verifiesAfresh(after.access_token)).to.equal(true);
    const refreshed = await fetch(`${issuer}/token`, {
      method: 'POST',
      body: new URLSearchParams({
        client_id: config.identity.clientId,
        client_secret: config.identity.clientSecret,
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token,
      }),
    });
    expect(kidOf((await json(refreshed)).access_token), 'a login from before the rotation refreshes onto the new key').to.equal(newKid);
  });
});
