// A login on its way through the identity provider: what the callback needs to finish it (state, nonce, code verifier, where to go back), sealed with
// AES-256-GCM into a short-lived cookie, so anonymous requests to /login cost no row (issue 42). A callback URL carried to another browser logs nobody in (its
// cookie holds another state: login CSRF), and a replayed callback fails at the provider, which takes each code once.
import { createHmac } from 'node:crypto';
import { z } from 'zod';
import { createSecretBox, type SecretBox } from '../webhooks/signing-secrets.ts';
import { safeReturnPath } from './return-to.ts';

/** How long a person has to finish logging in (typing a password, or signing up). */
export const LOGIN_ATTEMPT_TTL_MS = 30 * 60_000;

export type LoginAttempt = { state: string; nonce: string; codeVerifier: string; returnTo: string };

const Sealed = z.object({ state: z.string(), nonce: z.string(), codeVerifier: z.string(), returnTo: z.string(), expiresAt: z.number() });

// Sealed attempts are at most a couple of kilobytes (return_to is bounded); anything longer is not ours.
const MAX_COOKIE_LENGTH = 3_000;

/** The box of login cookies, under a key of their own derived from RALLY_ENCRYPTION_KEY. */
export function loginAttemptBox(encryptionKeyHex: string): SecretBox {
  return createSecretBox(createHmac('sha256', Buffer.from(encryptionKeyHex, 'hex')).update('rally browser login attempts').digest('hex'));
}

/** The login cookie's value for an attempt, good for LOGIN_ATTEMPT_TTL_MS. */
export function sealLoginAttempt(box: SecretBox, attempt: LoginAttempt, now = Date.now()): string {
  return box.seal(JSON.stringify({ ...attempt, expiresAt: now + LOGIN_ATTEMPT_TTL_MS })).toString('base64url');
}

/** The attempt of a login cookie, or undefined when it is absent, altered, not Rally's, or expired. */
export function openLoginAttempt(box: SecretBox, cookie: string | undefined, now = Date.now()): LoginAttempt | undefined {
  if (!cookie || cookie.length > MAX_COOKIE_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cookie)) return undefined;
  let opened: z.infer<typeof Sealed>;
  try {
    opened = Sealed.parse(JSON.parse(box.open(Buffer.from(cookie, 'base64url'))));
  } catch {
    return undefined;
  }
  if (opened.expiresAt <= now) return undefined;
  return { state: opened.state, nonce: opened.nonce, codeVerifier: opened.codeVerifier, returnTo: safeReturnPath(opened.returnTo) };
}
