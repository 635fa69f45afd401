// Rally signs OAuth app access tokens (RFC 9068 JWTs) with its own RSA keys, kept in PostgreSQL so every
// API process and restart signs and verifies alike; only their public halves are published. The API
// is the authorization server for apps (api/oauth/server/), so its tokens name PUBLIC_URL as issuer;
// the audience is the same as for login tokens.
// The keys rotate (core/oauth/signing-key-rotation.ts): each has a signs_from time, is published before
// it comes, and every process holds all stored keys, reloading them when the rotation NOTIFYs.
import { createLocalJWKSet, importJWK, type JWK, type JWTVerifyGetKey } from 'jose';
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import type { NotificationListener } from '../../db/notifications.ts';
import type { Logger } from '../../platform/logger.ts';
import { loadOrCreateSealedKeys } from '../auth/sealed-signing-keys.ts';

const ALGORITHM = 'RS256';
// Any constant works; it keeps two first starts from each making a key, and a rotation from racing a start.
export const OAUTH_KEYS_LOCK_ID = 7_301_044;
/** A rotation added or dropped a key: every API process reloads them. */
export const OAUTH_SIGNING_KEYS_CHANNEL = 'rally_oauth_signing_keys';

type PrivateKey = Awaited<ReturnType<typeof importJWK>>;
type LoadedKey = { kid: string; signsFrom: number; privateKey: PrivateKey; privateJwk: JWK; publicJwk: JWK };

export type OAuthSigner = {
  issuer: string;
  /** The key that signs now: of the keys whose signs_from has come, the newest. Read once per token. */
  signingKey(): { kid: string; privateKey: PrivateKey };
  /** Public halves of every stored key (pending, signing and retiring), for /oauth/jwks. */
  publishedJwks(): { keys: JWK[] };
  /** Verifies with whatever keys are loaded when a token arrives. */
  keySet: JWTVerifyGetKey;
  /** Every stored key with its private half, for the authorization server that signs with them. */
  privateJwks(): JWK[];
  /** Called after the held keys changed (a rotation's NOTIFY was heard and the keys reloaded). */
  onChange(listener: () => void): void;
};

const SignsFromRow = z.object({ kid: z.string(), signs_from: z.number() });

function publicHalf(jwk: JWK): JWK {
  const { kty, n, e, kid, alg, use } = jwk;
  return { kty, n, e, kid, alg, use };
}

async function loadKeys(db: DatabasePool, encryptionKey: string): Promise<LoadedKey[]> {
  // Sealed under RALLY_ENCRYPTION_KEY at rest, like the identity provider's keys.
  const jwks = await loadOrCreateSealedKeys(db, { table: 'oauth_signing_keys', lockId: OAUTH_KEYS_LOCK_ID, encryptionKey });
  const rows = await db.any(sql.type(SignsFromRow)`SELECT kid, (extract(epoch FROM signs_from) * 1000)::float8 AS signs_from FROM oauth_signing_keys`);
  const signsFrom = new Map(rows.map((row) => [row.kid, row.signs_from]));
  const keys: LoadedKey[] = [];
  for (const jwk of jwks) {
    // A key made between the two reads is skipped here; its rotation's NOTIFY brings it.
    const from = signsFrom.get(jwk.kid!);
    if (from !== undefined)
      keys.push({ kid: jwk.kid!, signsFrom: from, privateKey: await importJWK(jwk, ALGORITHM), privateJwk: jwk, publicJwk: publicHalf(jwk) });
  }
  return keys.sort((a, b) => b.signsFrom - a.signsFrom);
}

export async function loadOAuthSigner(
  db: DatabasePool,
  options: { issuer: string; encryptionKey: string; notifications: NotificationListener; log: Logger },
): Promise<OAuthSigner> {
  let keys = await loadKeys(db, options.encryptionKey);
  let keySet = createLocalJWKSet({ keys: keys.map((key) => key.publicJwk) });
  const listeners: Array<() => void> = [];
  async function reload() {
    const loaded = await loadKeys(db, options.encryptionKey);
    if (loaded.length === 0) return;
    keys = loaded;
    keySet = createLocalJWKSet({ keys: keys.map((key) => key.publicJwk) });
    for (const listener of listeners) listener();
  }
  // A failed reload keeps the keys held; the next NOTIFY or reconnect tries again.
  const reloadOrWarn = () => void reload().catch((error: Error) => options.log.warn('OAuth signing keys not reloaded', { error: error.message }));
  await options.notifications.listen(OAUTH_SIGNING_KEYS_CHANNEL, reloadOrWarn);
  options.notifications.onReconnect(reloadOrWarn);
  return {
    issuer: options.issuer,
    signingKey() {
      const now = Date.now();
      // Newest first: the first whose time has come; the oldest if none has (a clock far behind the database's).
      const key = keys.find((each) => each.signsFrom <= now) ?? keys[keys.length - 1]!;
      return { kid: key.kid, privateKey: key.privateKey };
    },
    publishedJwks: () => ({ keys: keys.map((key) => key.publicJwk) }),
    keySet: (header, token) => keySet(header, token),
    privateJwks: () => keys.map((key) => key.privateJwk),
    onChange: (listener) => void listeners.push(listener),
  };
}
