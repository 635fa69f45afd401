// The login cookie (issue 42): a login attempt sealed into the browser instead of a row per /login.
// It opens only under Rally's key, unaltered and within its lifetime, and what it says of where to
// go back is checked again on the way out.
import { expect } from 'chai';
import { LOGIN_ATTEMPT_TTL_MS, loginAttemptBox, openLoginAttempt, sealLoginAttempt } from '../../../core/browser-sessions/login-attempts.ts';

const KEY = 'ab'.repeat(32);
const attempt = { state: 'state-1', nonce: 'nonce-1', codeVerifier: 'verifier-1', returnTo: '/p/save-the-park' };

describe('login attempts sealed into the login cookie', () => {
  const box = loginAttemptBox(KEY);

  it('opens what it sealed, within its lifetime', () => {
    const now = Date.now();
    const cookie = sealLoginAttempt(box, attempt, now);
    expect(cookie).to.match(/^[A-Za-z0-9_-]+$/);
    expect(openLoginAttempt(box, cookie, now + LOGIN_ATTEMPT_TTL_MS - 1)).to.deep.equal(attempt);
    expect(openLoginAttempt(box, cookie, now + LOGIN_ATTEMPT_TTL_MS)).to.equal(undefined);
  });

  it('opens nothing altered, sealed under another key, or not a cookie of its own', () => {
    const cookie = sealLoginAttempt(box, attempt);
    const bytes = Buffer.from(cookie, 'base64url');
    bytes[bytes.length - 1]! ^= 1;
    for (const other of [bytes.toString('base64url'), sealLoginAttempt(loginAttemptBox('cd'.repeat(32)), attempt), '', 'x', 'a'.repeat(5000), `${cookie}!`]) {
      expect(openLoginAttempt(box, other)).to.equal(undefined);
    }
    expect(openLoginAttempt(box, undefined)).to.equal(undefined);
  });

  it('sends a sealed return path that no longer passes back to the default', () => {
    expect(openLoginAttempt(box, sealLoginAttempt(box, { ...attempt, returnTo: '/.//evil.example' }))?.returnTo).to.equal('/account');
  });
});
