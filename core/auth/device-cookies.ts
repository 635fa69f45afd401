// Device cookies (OWASP, "Slow brute-force protection using device cookies"): a browser that logged
// in to an account gets a signed token bound to that account's email, so a lock on the email from
// other people's guessing does not lock its owner out. One cookie holds the last few accounts' tokens.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Accounts one browser keeps a token for (several people may share a computer). */
const MAX_TOKENS = 5;
const TOKEN = /^([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;

export const DEVICE_COOKIE = 'rally_device';
/** How long a browser stays known: a device cookie is renewed at each login. */
export const DEVICE_COOKIE_MAX_AGE_SECONDS = 180 * 86_400;

export type DeviceCookies = {
  /** The nonce of the cookie's token for `emailHash`, when its signature holds; undefined otherwise. */
  nonceFor(cookie: string | undefined, emailHash: string): string | undefined;
  /** The cookie value after a login to `emailHash`: a fresh token first, then the others the cookie held. */
  issue(previous: string | undefined, emailHash: string): string;
};

export function createDeviceCookies(encryptionKeyHex: string): DeviceCookies {
  const key = createHmac('sha256', Buffer.from(encryptionKeyHex, 'hex')).update('rally login device cookies').digest();
  const signature = (emailHash: string, nonce: string) => createHmac('sha256', key).update(`${emailHash}.${nonce}`).digest();
  const tokensOf = (cookie: string | undefined) =>
    (cookie ?? '')
      .split('~')
      .slice(0, MAX_TOKENS)
      .map((token) => TOKEN.exec(token))
      .filter((match) => match !== null);

  function nonceFor(cookie: string | undefined, emailHash: string): string | undefined {
    for (const [, nonce, mac] of tokensOf(cookie)) {
      // Compared in constant time; a token of another account simply does not match.
      if (timingSafeEqual(Buffer.from(mac!, 'base64url'), signature(emailHash, nonce!))) return nonce;
    }
    return undefined;
  }

  return {
    nonceFor,
    issue(previous, emailHash) {
      const nonce = randomBytes(16).toString('base64url');
      const fresh = `${nonce}.${signature(emailHash, nonce).toString('base64url')}`;
      // The account's older token goes: one token per account, the newest accounts kept.
      const others = tokensOf(previous)
        .filter(([, oldNonce, mac]) => !timingSafeEqual(Buffer.from(mac!, 'base64url'), signature(emailHash, oldNonce!)))
        .map(([token]) => token);
      return [fresh, ...others].slice(0, MAX_TOKENS).join('~');
    },
  };
}
