// Issue 27 (RFC 9700): the key that signs app access tokens is rotated with an overlap. The rotation runs where the worker runs it
// (core/auth/signing-key-rotation.ts, not in an API process): the new key is in /oauth/jwks of every API process before it signs, tokens of the old key keep
// working until they could have expired, new tokens carry the new kid, and a process that made none of it verifies them.
import { expect } from 'chai';
import { decodeProtectedHeader } from 'jose';
import { OAUTH_SIGNING_KEYS } from '../../core/auth/rotating-signing-keys.ts';
import { rotateSigningKeyIfDue, type KeyRotationPolicy } from '../../core/auth/signing-key-rotation.ts';
import { loadConfig } from '../../platform/config.ts';
import { testEnvironment } from '../support/environment.ts';
import { json } from '../support/http.ts';
import { bearer } from '../support/identity.ts';
import { startOAuthFixture, type OAuthFixture } from '../support/oauth-fixture.ts';
import { startApi, type RunningApi } from '../support/processes.ts';

const HOUR_MS = 3_600_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const kidOf = (token: string) => String(decodeProtectedHeader(token).kid);

describe('rotating the key that signs app access tokens', function () {
  this.timeout(120_000);
  let f: OAuthFixture;
  let other: RunningApi;

  before(async () => {
    [f, other] = await Promise.all([startOAuthFixture(), startApi()]);
  });
  after(() => Promise.all([f?.api.stop(), other?.stop()]));

  const rotate = (policy: KeyRotationPolicy) =>
    rotateSigningKeyIfDue(testEnvironment().db, OAUTH_SIGNING_KEYS, { encryptionKey: loadConfig({}).encryptionKey, policy });
  const publishedKids = async (api: RunningApi) => ((await json(await fetch(`${api.baseUrl}/oauth/jwks`))).keys as { kid: string }[]).map((key) => key.kid);
  const statusOn = async (api: RunningApi, token: string) => (await fetch(`${api.baseUrl}/v1/users/me`, { headers: bearer(token) })).status;
  /** Keys reach every API process by NOTIFY: give it a moment. */
  async function eventually(check: () => Promise<boolean>, what: string) {
    for (let attempt = 0; attempt < 60; attempt++) {
      if (await check()) return;
      await sleep(50);
    }
    expect.fail(what);
  }

  it('publishes the new key before it signs, keeps the old one until its tokens expire, and every process verifies both', async () => {
    const before = await f.tokensFor();
    const oldKid = kidOf(before.access_token);

    const { created } = await rotate({ rotateAfterMs: 0, publishLeadMs: 8_000, retainAfterReplacedMs: HOUR_MS });
    expect(created, 'a rotation that is due makes a key').to.not.equal(null);
    const newKid = created!.kid;
    expect(newKid).to.not.equal(oldKid);
    const signsFrom = Date.parse(created!.signsFrom);

    for (const api of [f.api, other]) await eventually(async () => (await publishedKids(api)).includes(newKid), 'the new key published by every process');
    expect(await publishedKids(other)).to.include.members([oldKid, newKid]);
    const jwks = await fetch(`${other.baseUrl}/oauth/jwks`);
    expect(jwks.headers.get('cache-control'), 'cached for less than the day a key is published ahead').to.equal('public, max-age=3600');
    expect(Date.now(), 'still before the new key signs').to.be.below(signsFrom - 1_000);
    // Never shown to an API process: the verified-token cache (bounded by exp) cannot answer for it below.
    const unseen = (await f.tokensFor()).access_token;
    expect(kidOf(unseen), 'a token issued before signs_from').to.equal(oldKid);

    await sleep(signsFrom - Date.now() + 200);
    const after = await f.tokensFor();
    expect(kidOf(after.access_token)).to.equal(newKid);
    expect(await statusOn(other, after.access_token), 'the new key verified by the process that issued nothing').to.equal(200);
    for (const api of [f.api, other]) expect(await statusOn(api, before.access_token), 'the old key still verifies').to.equal(200);
    expect(await publishedKids(f.api)).to.include.members([oldKid, newKid]);

    // Once its tokens could all have expired, the replaced key is dropped everywhere; a second key is not made meanwhile.
    const later = await rotate({ rotateAfterMs: 30 * 24 * HOUR_MS, publishLeadMs: HOUR_MS, retainAfterReplacedMs: 100 });
    expect(later.created, 'no rotation while the newest key is young').to.equal(null);
    expect(later.dropped).to.include(oldKid).and.not.include(newKid);
    await eventually(async () => !(await publishedKids(other)).includes(oldKid), 'the replaced key withdrawn');
    expect(await statusOn(other, unseen), 'a token of a dropped key').to.equal(401);
    expect(await statusOn(other, after.access_token)).to.equal(200);
  });
});
