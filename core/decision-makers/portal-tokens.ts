// Portal tokens: 32 random bytes, base64url (43 characters), sent only in the decision maker's
// email. Rally keeps a SHA-256 of the token and looks tokens up by it; a leaked database does not
// reveal a working link.
import { createHash, randomBytes } from 'node:crypto';

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function newPortalToken(): { raw: string; hash: Buffer } {
  const raw = randomBytes(32).toString('base64url');
  return { raw, hash: hashPortalToken(raw) };
}

export function hashPortalToken(raw: string): Buffer {
  return createHash('sha256').update(raw, 'utf8').digest();
}

/** Anything not shaped like a token cannot be one: it is unknown (404) without a database lookup. */
export function looksLikePortalToken(raw: string): boolean {
  return TOKEN_PATTERN.test(raw);
}

export function portalUrl(publicUrl: string, raw: string): string {
  return `${publicUrl}/respond/${raw}`;
}
