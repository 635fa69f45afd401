import { expect } from 'chai';
import { redactSecretUrls } from '../../platform/secret-urls.ts';

describe('redactSecretUrls (platform/secret-urls.ts)', () => {
  const secret = 'Zq8-fT3_kP0wX9yL2mN5bV7cR1sD4gH6jK8aE0uI2oQ';

  it('masks the credential segment of the portal, unsubscribe and invitation paths', () => {
    for (const [path, masked] of [
      [`/respond/${secret}`, '/respond/[redacted]'],
      [`/v1/notifications/unsubscribe/${secret}`, '/v1/notifications/unsubscribe/[redacted]'],
      [`/v1/invitations/${secret}/accept`, '/v1/invitations/[redacted]/accept'],
      [`/guest-emails/unsubscribe/${secret}.${secret}`, '/guest-emails/unsubscribe/[redacted]'],
      [`http://rally.test/respond/${secret}?x=1`, 'http://rally.test/respond/[redacted]?x=1'],
    ])
      expect(redactSecretUrls(path!)).to.equal(masked);
  });

  it('masks credential query parameters: access codes, upload signatures, OAuth state and code, anything named like a token', () => {
    expect(redactSecretUrls(`/v1/petitions/abc?access_code=${secret}`)).to.equal('/v1/petitions/abc?access_code=[redacted]');
    expect(redactSecretUrls(`/v1/media/uploads/abc?expires=1700000000&signature=${secret}`)).to.equal(
      '/v1/media/uploads/abc?expires=1700000000&signature=[redacted]',
    );
    expect(redactSecretUrls(`/oauth/authorize?client_id=app&state=${secret}&code_challenge=abc&scope=read`)).to.equal(
      '/oauth/authorize?client_id=app&state=[redacted]&code_challenge=abc&scope=read',
    );
    expect(redactSecretUrls(`/cb?code=${secret}#x`)).to.equal('/cb?code=[redacted]#x');
    for (const name of ['token', 'access_token', 'refresh_token', 'api_key', 'client_secret', 'password']) {
      expect(redactSecretUrls(`/x?${name}=${secret}`), name).to.equal(`/x?${name}=[redacted]`);
    }
  });

  it('masks a percent-encoded state inside return_to, once or twice encoded, and the parameters after it', () => {
    const request = `/oauth/authorize?client_id=app&state=${secret}&code_challenge=abc&scope=read`;
    const once = `/login?return_to=${encodeURIComponent(request)}`;
    expect(redactSecretUrls(once)).to.equal(
      '/login?return_to=%2Foauth%2Fauthorize%3Fclient_id%3Dapp%26state%3D[redacted]%26code_challenge%3Dabc%26scope%3Dread',
    );
    const twice = `/x?next=${encodeURIComponent(once)}&page=2`;
    expect(redactSecretUrls(twice)).to.not.include(secret);
    expect(redactSecretUrls(twice)).to.include('scope%253Dread').and.include('&page=2');
    expect(redactSecretUrls(`/login?return_to=${encodeURIComponent(`/cb?code=${secret}&token=${secret}`)}`)).to.not.include(secret);
    // A state holding an encoded "&" is masked whole, not cut at it.
    const awkward = `/login?return_to=${encodeURIComponent(`/oauth/authorize?state=${encodeURIComponent(`a&${secret}`)}&x=1`)}`;
    expect(redactSecretUrls(awkward)).to.not.include(secret);
    expect(redactSecretUrls(awkward)).to.include('%26x%3D1');
    expect(redactSecretUrls(`/login?return_to=${encodeURIComponent(`/respond/${secret}`)}`)).to.equal('/login?return_to=%2Frespond%2F[redacted]');
  });

  it('leaves ids, slugs, cursors and other parameters as they are', () => {
    for (const path of [
      '/v1/petitions/6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f/signatures?cursor=eyJ0Ijo&limit=5',
      '/p/save-the-river',
      '/v1/organizations/o/invitations',
      '/v1/search/petitions?q=river&sort=recent',
      `/login?return_to=${encodeURIComponent('/p/save-the-river?ref=ada')}`,
    ]) {
      expect(redactSecretUrls(path)).to.equal(path);
    }
  });

  it('masks URLs inside a whole JSON log line', () => {
    const line = JSON.stringify({
      message: 'unhandled error',
      path: `/respond/${secret}`,
      error: `fetch http://h/v1/petitions/p?access_code=${secret} failed`,
    });
    expect(redactSecretUrls(line)).to.not.include(secret);
    expect(JSON.parse(redactSecretUrls(line))).to.include({ path: '/respond/[redacted]' });
  });
});
