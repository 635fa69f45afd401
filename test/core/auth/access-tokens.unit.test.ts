import { expect } from 'chai';
import { createLocalJWKSet, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { createAccessTokenVerifier } from '../../../core/auth/access-tokens.ts';
import type { IdentityClient } from '../../../core/auth/identity-client.ts';

const ISSUER = 'https://rally.test/oauth';
const AUDIENCE = 'https://rally.test';

// App tokens are verified against a key set Rally holds itself, so no provider is needed here.
async function appTokens() {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const keySet = createLocalJWKSet({ keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' }] });
  const noProvider = {} as IdentityClient;
  const verify = createAccessTokenVerifier({ identity: noProvider, audience: AUDIENCE, apps: { issuer: ISSUER, keySet } });
  const issue = (claims: Record<string, unknown> = {}, expiresInSeconds = 600) =>
    new SignJWT({ client_id: 'app_1', scope: 'petitions:read', jti: crypto.randomUUID(), ...claims })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1', typ: 'at+jwt' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject('7b0b8c56-4a39-4d5e-9a55-1f6f0e3f5c10')
      .setExpirationTime(Math.floor(Date.now() / 1000) + expiresInSeconds)
      .sign(privateKey);
  return { verify, issue };
}

describe('createAccessTokenVerifier (core/auth/access-tokens.ts)', () => {
  it('answers the same claims for a token presented again', async () => {
    const { verify, issue } = await appTokens();
    const token = await issue();
    const first = await verify(token);
    expect(first).to.include({ issuer: ISSUER, clientId: 'app_1' });
    expect(await verify(token)).to.deep.equal(first);
  });

  it('refuses a tampered copy of a token it has already verified', async () => {
    const { verify, issue } = await appTokens();
    const token = await issue();
    await verify(token);
    const [header, payload, signature] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), sub: 'someone-else' })).toString('base64url');
    let refused: unknown;
    await verify(`${header}.${forged}.${signature}`).catch((error: unknown) => (refused = error));
    expect(refused).to.have.property('code', 'invalid_token');
  });

  it('refuses a token that expired long ago, verified or not', async () => {
    const { verify, issue } = await appTokens();
    let refused: unknown;
    await verify(await issue({}, -60)).catch((error: unknown) => (refused = error));
    expect(refused).to.have.property('code', 'token_expired');
  });
});
