// Rally signs OAuth app access tokens (RFC 9068 JWTs) with its own RSA keys, kept in PostgreSQL so every
// API process and restart signs and verifies alike; only their public halves are published. The API
// is the authorization server for apps (api/oauth/server/), so its tokens name PUBLIC_URL as issuer;
// the audience is the same as for login tokens.
// The keys rotate (core/auth/signing-key-rotation.ts): each has a signs_from time, is published before
// it comes, and every process holds all stored keys, reloading them when the rotation NOTIFYs.
import type { DatabasePool } from 'slonik';
import type { NotificationListener } from '../../db/notifications.ts';
import type { Logger } from '../../platform/logger.ts';
import { loadRotatingSigningKeys, OAUTH_SIGNING_KEYS, type RotatingSigningKeys } from '../auth/rotating-signing-keys.ts';

export type OAuthSigner = RotatingSigningKeys & { issuer: string };

export async function loadOAuthSigner(
  db: DatabasePool,
  options: { issuer: string; encryptionKey: string; notifications: NotificationListener; log: Logger },
): Promise<OAuthSigner> {
  return { issuer: options.issuer, ...(await loadRotatingSigningKeys(db, OAUTH_SIGNING_KEYS, options)) };
}
