import { expect } from 'chai';
import { createLocalJWKSet, exportJWK, generateKeyPair, SignJWT, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { InvalidJwt, verifyJwt, type JwtExpectations } from '../../../core/auth/compact-jwt.ts';

const ISSUER = 'https://id.rally.test';
const AUDIENCE = 'https://rally.test';
const EXPECTED: JwtExpectations = { issuer: ISSUER, audience: AUDIENCE, clockToleranceSeconds: 5 };
const now = () => Math.floor(Date.now() / 1000);

async function signerFor(alg: string) {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const keySet = createLocalJWKSet({ keys: [{ ...(await exportJWK(publicKey)), kid: alg, alg }] });
  const sign = (claims: JWTPayload = {}, header: Record<string, unknown> = {}) =>
    new SignJWT({ iss: ISSUER, aud: AUDIENCE, sub: 'someone', jti: 'j1', exp: now() + 600, ...claims })
      .setProtectedHeader({ alg, kid: alg, ...header })
      .sign(privateKey);
  return { keySet, sign };
}

const verify = async (token: string, keySet: JWTVerifyGetKey, expected: JwtExpectations) => (await verifyJwt(token, () => ({ keySet, expected }))).claims;

async function refusal(promise: Promise<unknown>): Promise<InvalidJwt | Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('the token was accepted');
}

describe('verifyJwt (core/auth/compact-jwt.ts)', () => {
  for (const alg of ['RS256', 'PS256', 'ES256', 'EdDSA']) {
    it(`answers the claims of a ${alg} token signed by a key of the set`, async () => {
      const { keySet, sign } = await signerFor(alg);
      expect(await verify(await sign({ scope: 'a b' }), keySet, EXPECTED)).to.include({ sub: 'someone', scope: 'a b' });
    });
  }

  it('refuses a token whose payload was changed after signing', async () => {
    const { keySet, sign } = await signerFor('RS256');
    const [header, , signature] = (await sign()).split('.');
    const forged = Buffer.from(JSON.stringify({ iss: ISSUER, aud: AUDIENCE, sub: 'someone-else', exp: now() + 600 })).toString('base64url');
    expect(await refusal(verify(`${header}.${forged}.${signature}`, keySet, EXPECTED))).to.be.instanceOf(InvalidJwt);
  });

  it('refuses algorithms outside the allow-list (none, HMAC), whatever the key set holds', async () => {
    const { keySet, sign } = await signerFor('RS256');
    const [, payload] = (await sign()).split('.');
    for (const alg of ['none', 'HS256']) {
      const header = Buffer.from(JSON.stringify({ alg, kid: 'RS256' })).toString('base64url');
      const error = await refusal(verify(`${header}.${payload}.c2lnbmF0dXJl`, keySet, EXPECTED));
      expect(error).to.be.instanceOf(InvalidJwt).with.property('message', 'the algorithm is not allowed');
    }
  });

  it('refuses another issuer or audience, and a typ other than the one asked for', async () => {
    const { keySet, sign } = await signerFor('ES256');
    expect(await refusal(verify(await sign({ iss: 'https://elsewhere' }), keySet, EXPECTED))).to.have.property('message', 'unexpected iss');
    expect(await refusal(verify(await sign({ aud: ['https://other'] }), keySet, EXPECTED))).to.have.property('message', 'unexpected aud');
    expect(await verify(await sign({ aud: ['https://other', AUDIENCE] }), keySet, EXPECTED)).to.have.property('sub', 'someone');
    const appToken = await sign({}, { typ: 'at+jwt' });
    expect(await verify(appToken, keySet, { ...EXPECTED, typ: 'application/at+jwt' })).to.have.property('sub', 'someone');
    expect(await refusal(verify(await sign({}, { typ: 'JWT' }), keySet, { ...EXPECTED, typ: 'at+jwt' }))).to.have.property('message', 'unexpected typ');
  });

  it('allows the clock tolerance on exp and nbf, and says when a token expired beyond it', async () => {
    const { keySet, sign } = await signerFor('ES256');
    expect(await verify(await sign({ exp: now() - 3, nbf: now() + 3 }), keySet, EXPECTED)).to.have.property('sub', 'someone');
    expect(await refusal(verify(await sign({ exp: now() - 6 }), keySet, EXPECTED))).to.include({ expired: true });
    expect(await refusal(verify(await sign({ nbf: now() + 60 }), keySet, EXPECTED))).to.include({ expired: false, message: 'not valid yet' });
  });

  it('refuses critical header extensions it does not understand', async () => {
    const { keySet, sign } = await signerFor('ES256');
    const [, payload, signature] = (await sign()).split('.');
    const header = Buffer.from(JSON.stringify({ alg: 'ES256', kid: 'ES256', crit: ['x'], x: 1 })).toString('base64url');
    expect(await refusal(verify(`${header}.${payload}.${signature}`, keySet, EXPECTED))).to.have.property('message', 'the header names extensions');
  });
});
