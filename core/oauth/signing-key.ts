// Rally signs OAuth app access tokens (RFC 9068 JWTs) with its own RSA keys, kept in PostgreSQL so every API process signs and verifies alike; as the
// authorization server for apps (api/oauth/server/), it names PUBLIC_URL as issuer, with the login tokens' audience. The keys rotate (signing-key-rotation.ts):
// each is published before its signs_from, and every process reloads them all when the rotation NOTIFYs.
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
