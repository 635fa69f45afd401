// The two tokens of guest signing (the form token and the confirmation link's), both HMACs keyed from the service's encryption key, so neither needs a session
// or a cookie (the widget's iframe gets none: third-party cookies are blocked).
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export const MIN_FILL_MS = 3_000;
export const FORM_TOKEN_MAX_AGE_MS = 2 * 60 * 60_000;

const hmac = (keyHex: string, purpose: string, payload: string) =>
  createHmac('sha256', Buffer.from(keyHex, 'hex')).update(`rally-${purpose}:${payload}`).digest();

const sameBytes = (given: Buffer, expected: Buffer) => given.length === expected.length && timingSafeEqual(given, expected);

/**
 * `<issued at, seconds>.<signature>`, bound to the petition.
 * The form token: the petition and the second the form was served, signed. The submit checks it is Rally's own
 * form for this petition (with the route's Origin / Sec-Fetch-Site checks, the CSRF guard of a form without a
 * session), not older than FORM_TOKEN_MAX_AGE_MS, and not younger than MIN_FILL_MS: a person takes a few
 * seconds to type a name and an address, a bot none.
 */
export function formToken(keyHex: string, petitionId: string, issuedAtMs: number): string {
  const issuedAt = Math.floor(issuedAtMs / 1000);
  return `${issuedAt}.${hmac(keyHex, 'guest-form', `${petitionId}:${issuedAt}`).subarray(0, 18).toString('base64url')}`;
}

export type FormTokenVerdict = 'ok' | 'forged' | 'too_fast' | 'stale';

export function checkFormToken(keyHex: string, petitionId: string, token: string, nowMs: number): FormTokenVerdict {
  const match = /^(\d{1,12})\.([A-Za-z0-9_-]{24})$/.exec(token);
  if (!match) return 'forged';
  const issuedAt = Number(match[1]);
  const expected = hmac(keyHex, 'guest-form', `${petitionId}:${issuedAt}`).subarray(0, 18);
  if (!sameBytes(Buffer.from(match[2]!, 'base64url'), expected)) return 'forged';
  const age = nowMs - issuedAt * 1000;
  // Issued in whole seconds: up to a second younger than it looks.
  if (age < MIN_FILL_MS - 1000) return 'too_fast';
  return age > FORM_TOKEN_MAX_AGE_MS ? 'stale' : 'ok';
}

/**
 * The secret part of a guest signature's confirmation link.
 * The confirmation email's link token is derived from the guest signature's id, so the reminder can carry the
 * same link; the row keeps only its SHA-256, compared in constant time.
 */
export function linkToken(keyHex: string, guestSignatureId: string): string {
  return hmac(keyHex, 'guest-signature', guestSignatureId).toString('base64url');
}

/** What the row keeps of the link token. */
export const tokenHash = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();

/** The link's last path segment: `<guest signature id>.<token>`. */
export const confirmationReference = (keyHex: string, guestSignatureId: string) => `${guestSignatureId}.${linkToken(keyHex, guestSignatureId)}`;

export const confirmationUrl = (publicUrl: string, reference: string) => `${publicUrl}/signatures/confirm/${reference}`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The id and token of a link's reference, or null when it cannot be one. */
export function parseReference(reference: string): { id: string; token: string } | null {
  const [id, token, ...rest] = reference.split('.');
  if (!id || !token || rest.length > 0 || !UUID.test(id) || !/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
  return { id, token };
}

/** Whether the presented token is the one whose hash the row keeps (constant time). */
export const tokenMatches = (token: string, storedHash: Buffer) => sameBytes(tokenHash(token), storedHash);
