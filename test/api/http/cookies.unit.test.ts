// The session cookie's attributes (issue 26): HttpOnly, SameSite=Lax, host-only, Path=/, Secure
// outside plain-http development (then with the __Host- prefix), and a Cookie header read strictly.
import { expect } from 'chai';
import { cookiePolicy, readCookie, setCookie } from '../../../api/http/cookies.ts';

const attributes = (header: string) => header.split('; ').slice(1);

describe('browser cookies', () => {
  it('are HttpOnly, SameSite=Lax, host-only and Secure with the __Host- prefix on an https site', () => {
    const header = setCookie(cookiePolicy('https://rally.example.org', 'production'), 'rally_session', 'abc', 3600);
    expect(header.startsWith('__Host-rally_session=abc; ')).to.equal(true);
    expect(attributes(header)).to.have.members(['Path=/', 'Max-Age=3600', 'HttpOnly', 'SameSite=Lax', 'Secure']);
    expect(header).to.not.match(/Domain=/i);
  });

  it('stay Secure in production even when PUBLIC_URL says http', () => {
    expect(cookiePolicy('http://rally.example.org', 'production').secure).to.equal(true);
  });

  it('go without Secure only for a plain-http development or test site, where browsers would drop them', () => {
    for (const env of ['development', 'test']) {
      const header = setCookie(cookiePolicy('http://localhost:3000', env), 'rally_session', 'abc', 60);
      expect(header.startsWith('rally_session=abc; ')).to.equal(true);
      expect(attributes(header)).to.have.members(['Path=/', 'Max-Age=60', 'HttpOnly', 'SameSite=Lax']);
    }
  });

  it('are deleted with Max-Age=0', () => {
    expect(setCookie({ secure: false }, 'rally_session', '', 0)).to.include('Max-Age=0');
  });

  it('are read only when the header names them exactly once', () => {
    expect(readCookie('a=1; rally_session=xyz; b=2', 'rally_session')).to.equal('xyz');
    expect(readCookie('rally_session=one; rally_session=two', 'rally_session')).to.equal(undefined);
    expect(readCookie('xrally_session=no', 'rally_session')).to.equal(undefined);
    expect(readCookie(undefined, 'rally_session')).to.equal(undefined);
  });
});
