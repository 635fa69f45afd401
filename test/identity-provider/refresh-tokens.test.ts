// Refresh tokens at the embedded identity provider: rotation, replay, revocation, their lifetime,
// and what survives a restart (the stored tokens and the signing keys, both in PostgreSQL).
import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { createRemoteJWKSet, exportJWK, generateKeyPair, jwtVerify } from 'jose';
import { z } from 'zod';
import { createIdentityAccount } from '../../identity-provider/accounts.ts';
import { sql } from '../../db/sql.ts';
import { createSecretBox } from '../../core/webhooks/signing-secrets.ts';
import { loadConfig } from '../../platform/config.ts';
import { testEnvironment } from '../support/environment.ts';
import { json } from '../support/http.ts';
import { AUDIENCE, freePort, login, refresh, revoke, startProvider, type RunningProvider } from './provider-process.ts';

const StoredToken = z.object({ id: z.string(), expires_at: z.string(), consumed_at: z.string().nullable() });

/** Refresh tokens are stored under the hex SHA-256 of their value; keyed here by the value. */
const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
async function storedRefreshTokens(tokens: string[]) {
  const rows = await testEnvironment().db.any(sql.type(StoredToken)`
    SELECT id, expires_at, consumed_at FROM identity_provider_records
    WHERE model = 'RefreshToken' AND id = ANY(${sql.array(tokens.map(sha256), 'text')})
  `);
  return new Map(tokens.map((token) => [token, rows.find((row) => row.id === sha256(token))]));
}

describe('embedded identity provider: refresh tokens', function () {
  this.timeout(60_000);
  const email = `grace.${randomBytes(4).toString('hex')}@example.org`;
  const password = 'a long enough password';
  let provider: RunningProvider;

  before(async () => {
    await createIdentityAccount(testEnvironment().db, { email, password, displayName: 'Grace Hopper' });
    provider = await startProvider(await freePort());
  });
  after(() => provider.stop());

  it('rotates on refresh without moving the expiry: a session lasts refreshTokenTtl from the login', async () => {
    const first = await json(await login(provider.issuer, email, password));
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const response = await refresh(provider.issuer, first.refresh_token);
    expect(response.status).to.equal(200);
    const second = await json(response);
    expect(second.refresh_token).to.be.a('string').and.not.equal(first.refresh_token);
    expect(second.id_token).to.be.a('string');

    const stored = await storedRefreshTokens([first.refresh_token, second.refresh_token]);
    const [old, rotated] = [stored.get(first.refresh_token)!, stored.get(second.refresh_token)!];
    expect(old.consumed_at).to.be.a('string');
    expect(Math.abs(Date.parse(rotated.expires_at) - Date.parse(old.expires_at))).to.be.below(1_000);
    const thirtyDays = 30 * 86_400_000;
    expect(Date.parse(old.expires_at) - Date.now()).to.be.within(thirtyDays - 60_000, thirtyDays);
  });

  it('ends the whole session when a used refresh token is replayed', async () => {
    const first = await json(await login(provider.issuer, email, password));
    const second = await json(await refresh(provider.issuer, first.refresh_token));
    expect((await json(await refresh(provider.issuer, first.refresh_token))).error).to.equal('invalid_grant');
    expect((await json(await refresh(provider.issuer, second.refresh_token))).error).to.equal('invalid_grant');
  });

  it('refreshes once when 20 refreshes of one refresh token arrive at once, and ends that session (issue 42)', async () => {
    const first = await json(await login(provider.issuer, email, password));
    const answers = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const response = await refresh(provider.issuer, first.refresh_token);
        return { status: response.status, body: await json(response) };
      }),
    );
    const winners = answers.filter((answer) => answer.status === 200);
    expect(winners, 'exactly one refresh gets tokens').to.have.length(1);
    const losers = answers.filter((answer) => answer.status !== 200).map((answer) => `${answer.status} ${answer.body.error}`);
    expect(losers).to.deep.equal(Array(19).fill('400 invalid_grant'));
    expect((await json(await refresh(provider.issuer, winners[0]!.body.refresh_token))).error, "the winner's refresh token").to.equal('invalid_grant');
  });

  it('stops refreshing a refresh token once it is revoked (RFC 7009)', async () => {
    const tokens = await json(await login(provider.issuer, email, password));
    expect((await revoke(provider.issuer, tokens.refresh_token)).status).to.equal(200);
    const response = await refresh(provider.issuer, tokens.refresh_token);
    expect(response.status).to.equal(400);
    expect((await json(response)).error).to.equal('invalid_grant');
    expect((await revoke(provider.issuer, 'never-issued')).status).to.equal(200);
  });

  it('refuses a refresh token past RALLY_REFRESH_TOKEN_TTL, and gives access tokens RALLY_ACCESS_TOKEN_TTL', async () => {
    const shortLived = await startProvider(await freePort(), { RALLY_ACCESS_TOKEN_TTL: '1m', RALLY_REFRESH_TOKEN_TTL: '2s' });
    try {
      const tokens = await json(await login(shortLived.issuer, email, password));
      expect(tokens.expires_in).to.equal(60);
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      expect((await json(await refresh(shortLived.issuer, tokens.refresh_token))).error).to.equal('invalid_grant');
    } finally {
      await shortLived.stop();
    }
  });

  it('keeps refresh tokens and signing keys across a restart, and stops cleanly on SIGTERM', async () => {
    const tokens = await json(await login(provider.issuer, email, password));
    expect(await provider.stop()).to.equal(0);
    // An older key as releases before sealing stored it, in the clear: the restart seals it.
    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    const clearKid = `clear-${randomBytes(4).toString('hex')}`;
    await testEnvironment().db.query(sql.typeAlias('void')`
      INSERT INTO identity_signing_keys (kid, private_jwk, created_at, signs_from)
      VALUES (${clearKid}, ${sql.jsonb({ ...(await exportJWK(privateKey)), kid: clearKid, alg: 'RS256', use: 'sig' } as never)}, now() - interval '1 year',
              now() - interval '1 year')`);
    provider = await startProvider(provider.port);
    const sealedLater = await testEnvironment().db.one(sql.type(z.object({ clear: z.boolean(), sealed: z.boolean() }))`
      SELECT private_jwk IS NOT NULL AS clear, sealed_jwk IS NOT NULL AS sealed FROM identity_signing_keys WHERE kid = ${clearKid}`);
    expect(sealedLater).to.deep.equal({ clear: false, sealed: true });

    const jwks = createRemoteJWKSet(new URL(`${provider.issuer}/jwks`));
    const { payload } = await jwtVerify(tokens.access_token, jwks, { issuer: provider.issuer, audience: AUDIENCE });
    expect(payload.sub).to.be.a('string');
    const response = await refresh(provider.issuer, tokens.refresh_token);
    expect(response.status).to.equal(200);
  });

  it('stores refresh tokens only as a hash and its signing key only sealed under RALLY_ENCRYPTION_KEY', async () => {
    const tokens = await json(await login(provider.issuer, email, password));
    const { db } = testEnvironment();
    const rows = await db.anyFirst(sql.type(z.object({ line: z.string() }))`SELECT row_to_json(r)::text AS line FROM identity_provider_records r`);
    expect(
      rows.filter((line) => line.includes(tokens.refresh_token)),
      'rows holding the raw refresh token',
    ).to.deep.equal([]);
    expect((await storedRefreshTokens([tokens.refresh_token])).get(tokens.refresh_token)).to.not.equal(undefined);

    const keys = await db.any(sql.type(z.object({ kid: z.string(), private_jwk: z.unknown(), sealed_jwk: z.instanceof(Buffer) }))`
      SELECT kid, private_jwk, sealed_jwk FROM identity_signing_keys`);
    expect(keys).to.have.length.greaterThan(0);
    for (const key of keys) {
      expect(key.private_jwk).to.equal(null);
      // The test processes run with the development RALLY_ENCRYPTION_KEY; with it the sealed key opens.
      const jwk = JSON.parse(createSecretBox(loadConfig({}).encryptionKey).open(key.sealed_jwk)) as { d: string; kid: string };
      expect(jwk.kid).to.equal(key.kid);
      expect(key.sealed_jwk.toString('latin1')).to.not.include(jwk.d);
    }
  });
});
