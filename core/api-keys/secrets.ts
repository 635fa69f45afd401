// The API key format: `rally_live_<43 base64url chars>` or `rally_test_…`, 32 random bytes of secret.
// Only the SHA-256 of the whole key is stored; a short prefix is kept for people to recognise it.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export type KeyEnvironment = 'live' | 'test';

const KEY_PATTERN = /^rally_(live|test)_[A-Za-z0-9_-]{43}$/;

export type NewApiKey = { raw: string; displayPrefix: string; secretHash: Buffer };

export function generateApiKey(environment: KeyEnvironment): NewApiKey {
  const raw = `rally_${environment}_${randomBytes(32).toString('base64url')}`;
  return { raw, displayPrefix: raw.slice(0, 'rally_live_'.length + 6), secretHash: hashApiKey(raw) };
}

export function looksLikeApiKey(token: string): boolean {
  return token.startsWith('rally_live_') || token.startsWith('rally_test_');
}

export function isWellFormedApiKey(token: string): boolean {
  return KEY_PATTERN.test(token);
}

export function hashApiKey(raw: string): Buffer {
  return createHash('sha256').update(raw, 'utf8').digest();
}

/** The row was found by its hash; compare again in constant time so no timing depends on the key. */
export function sameHash(stored: Buffer, presented: Buffer): boolean {
  return stored.length === presented.length && timingSafeEqual(stored, presented);
}
