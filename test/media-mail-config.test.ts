// The media and mail settings of platform/config.ts: defaults, S3 as a whole or not at all, and the
// signing key production must set.
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../platform/config.ts';
import { PRODUCTION_SECRETS } from './support/production-secrets.ts';

describe('configuration of media storage and mail', () => {
  it('defaults to local folders, a 10 MiB limit and no SMTP server', () => {
    const config = loadConfig({});
    expect(config.media).to.deep.include({ dir: '.data/media', maxBytes: 10 * 1024 * 1024, s3: undefined });
    expect(config.mail).to.deep.equal({ smtpUrl: undefined, dir: '.data/mail', from: 'Rally <no-reply@localhost>' });
  });

  it('reads a complete S3 configuration, public URL defaulting to the bucket', () => {
    const { media } = loadConfig({ S3_ENDPOINT: 'http://127.0.0.1:9000/', S3_BUCKET: 'media', S3_ACCESS_KEY_ID: 'id', S3_SECRET_ACCESS_KEY: 'secret' });
    expect(media.s3).to.deep.equal({
      endpoint: 'http://127.0.0.1:9000',
      bucket: 'media',
      region: 'us-east-1',
      accessKeyId: 'id',
      secretAccessKey: 'secret',
      publicUrl: 'http://127.0.0.1:9000/media',
    });
  });

  const refused: [string, Record<string, string>][] = [
    ['S3_BUCKET', { S3_ENDPOINT: 'http://127.0.0.1:9000', S3_ACCESS_KEY_ID: 'id', S3_SECRET_ACCESS_KEY: 'secret' }],
    ['RALLY_MEDIA_MAX_BYTES', { RALLY_MEDIA_MAX_BYTES: 'lots' }],
    ['SMTP_URL', { SMTP_URL: 'http://mail.example.test' }],
    ['RALLY_MEDIA_SIGNING_KEY', { ...PRODUCTION_SECRETS, RALLY_MEDIA_SIGNING_KEY: '' }],
  ];
  for (const [name, env] of refused) {
    it(`stops start-up naming ${name}`, () => {
      expect(() => loadConfig(env)).to.throw(ConfigError, name);
    });
  }
});
