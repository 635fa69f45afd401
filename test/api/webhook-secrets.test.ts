// The pieces under webhook signing and the URL guard, without any service running.
import { sign, verify } from '@octokit/webhooks-methods';
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../platform/config.ts';
import { createSecretBox, generateSigningSecret, openingOnce, signPayload } from '../../core/webhooks/signing-secrets.ts';
import { isPrivateAddress } from '../../core/webhooks/url-guard.ts';

describe('webhook signing secrets', () => {
  const box = createSecretBox('ab'.repeat(32));

  it('seals and opens a secret, and refuses a tampered one', () => {
    const secret = generateSigningSecret();
    const sealed = box.seal(secret);
    expect(box.open(sealed)).to.equal(secret);
    expect(box.seal(secret).equals(sealed), 'a fresh IV each time').to.equal(false);
    sealed[sealed.length - 1]! ^= 1;
    expect(() => box.open(sealed)).to.throw();
    expect(() => createSecretBox('cd'.repeat(32)).open(box.seal(secret))).to.throw();
  });

  it('opens each sealed secret of a batch once, and each to its own plaintext', () => {
    const [first, second] = [generateSigningSecret(), generateSigningSecret()];
    const [sealedFirst, sealedSecond] = [box.seal(first), box.seal(second)];
    let opened = 0;
    const batch = openingOnce({ seal: box.seal, open: (sealed) => ((opened += 1), box.open(sealed)) });
    for (let round = 0; round < 3; round += 1) {
      expect(batch.open(sealedFirst)).to.equal(first);
      expect(batch.open(Buffer.from(sealedSecond))).to.equal(second);
    }
    expect(opened).to.equal(2);
    const tampered = Buffer.from(sealedFirst);
    tampered[tampered.length - 1]! ^= 1;
    expect(() => batch.open(tampered)).to.throw();
  });

  it('signs exactly as GitHub does', async () => {
    const secret = generateSigningSecret();
    const body = JSON.stringify({ id: 'e', data: { text: 'naïve ✓' } });
    expect(signPayload(secret, body)).to.equal(await sign(secret, body));
    expect(await verify(secret, body, signPayload(secret, body))).to.equal(true);
  });

  it('needs RALLY_ENCRYPTION_KEY in production and rejects a key that is not 32 bytes', () => {
    const production = { NODE_ENV: 'production', OIDC_CLIENT_SECRET: 's', RALLY_MEDIA_SIGNING_KEY: 'm' };
    expect(() => loadConfig(production)).to.throw(ConfigError, /RALLY_ENCRYPTION_KEY/);
    expect(() => loadConfig({ RALLY_ENCRYPTION_KEY: 'short' })).to.throw(ConfigError, /32 bytes/);
    expect(loadConfig({ ...production, RALLY_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') }).encryptionKey).to.equal('07'.repeat(32));
  });
});

describe('webhook address guard', () => {
  for (const address of [
    '127.0.0.1',
    '10.0.0.8',
    '172.20.1.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    'fd00::1',
    'fe80::1',
    '::ffff:10.0.0.1',
    '::ffff:7f00:1',
    '64:ff9b::a00:1',
    // Issue 42: 6to4, local-use NAT64 and IPv4-compatible addresses, bare and embedding private IPv4s.
    '2002::1',
    '2002:a00:1::1',
    '2002:7f00:1::',
    '2002:a9fe:a9fe::1',
    '64:ff9b:1::1',
    '64:ff9b:1::a00:1',
    '64:ff9b:1:a00:0:100::',
    '::a00:1',
    '::127.0.0.1',
    '::192.168.1.1',
    '::8.8.8.8',
    'not-an-ip',
  ]) {
    it(`treats ${address} as private`, () => expect(isPrivateAddress(address)).to.equal(true));
  }
  for (const address of ['93.184.215.14', '8.8.8.8', '::ffff:8.8.8.8', '2606:4700::1111', '2003:e1::1', '2001:4860:4860::8888']) {
    it(`treats ${address} as public`, () => expect(isPrivateAddress(address)).to.equal(false));
  }
});
