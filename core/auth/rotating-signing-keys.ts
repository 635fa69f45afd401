// Signing keys that rotate (core/auth/signing-key-rotation.ts), held by every process of their issuer:
// all stored keys, each with its signs_from, reloaded when a rotation NOTIFYs. Two issuers have them:
// the embedded identity provider (Rally logins) and Rally's authorization server for apps.
import { createLocalJWKSet, importJWK, type JWK, type JWTVerifyGetKey } from 'jose';
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import type { NotificationListener } from '../../db/notifications.ts';
import type { Logger } from '../../platform/logger.ts';
import { loadOrCreateSealedKeys, type SealedKeyStore } from './sealed-signing-keys.ts';

/** Where an issuer's keys are kept, the lock that orders their changes, and the channel that announces them. */
export type RotatingKeyStore = { table: SealedKeyStore['table']; lockId: number; channel: string };

// Lock ids: any constants; they keep two first starts from each making a key, and a rotation from racing a start.
export const IDENTITY_SIGNING_KEYS: RotatingKeyStore = { table: 'identity_signing_keys', lockId: 7_301_043, channel: 'rally_identity_signing_keys' };
export const OAUTH_SIGNING_KEYS: RotatingKeyStore = { table: 'oauth_signing_keys', lockId: 7_301_044, channel: 'rally_oauth_signing_keys' };

const ALGORITHM = 'RS256';

type PrivateKey = Awaited<ReturnType<typeof importJWK>>;
export type LoadedKey = { kid: string; signsFrom: number; privateKey: PrivateKey; privateJwk: JWK; publicJwk: JWK };

export type RotatingSigningKeys = {
  /** The key that signs now: of the keys whose signs_from has come, the newest. Read once per token. */
  signingKey(): { kid: string; privateKey: PrivateKey };
  /** Public halves of every stored key (pending, signing and retiring), for the JWKS. */
  publishedJwks(): { keys: JWK[] };
  /** Verifies with whatever keys are loaded when a token arrives. */
  keySet: JWTVerifyGetKey;
  /** Every stored key with its private half, the one that signs now first (oidc-provider signs ID tokens with the first). */
  privateJwks(): JWK[];
  /** Called after the held keys changed (a rotation's NOTIFY was heard and the keys reloaded). */
  onChange(listener: () => void): void;
};

const SignsFromRow = z.object({ kid: z.string(), signs_from: z.number() });

function publicHalf(jwk: JWK): JWK {
  const { kty, n, e, kid, alg, use } = jwk;
  return { kty, n, e, kid, alg, use };
}

/** Every stored key, newest signs_from first; makes the first one when there is none. */
export async function loadSigningKeys(db: DatabasePool, store: RotatingKeyStore, encryptionKey: string): Promise<LoadedKey[]> {
  // Sealed under RALLY_ENCRYPTION_KEY at rest (core/auth/sealed-signing-keys.ts).
  const jwks = await loadOrCreateSealedKeys(db, { table: store.table, lockId: store.lockId, encryptionKey });
  const rows = await db.any(
    sql.type(SignsFromRow)`SELECT kid, (extract(epoch FROM signs_from) * 1000)::float8 AS signs_from FROM ${sql.identifier([store.table])}`,
  );
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

/** Of keys sorted newest first, the first whose time has come; the oldest if none has (a clock far behind the database's). */
export const keySigningAt = (keys: readonly LoadedKey[], now: number): LoadedKey => keys.find((each) => each.signsFrom <= now) ?? keys[keys.length - 1]!;

export async function loadRotatingSigningKeys(
  db: DatabasePool,
  store: RotatingKeyStore,
  options: { encryptionKey: string; notifications: NotificationListener; log: Logger },
): Promise<RotatingSigningKeys> {
  let keys = await loadSigningKeys(db, store, options.encryptionKey);
  let keySet = createLocalJWKSet({ keys: keys.map((key) => key.publicJwk) });
  const listeners: Array<() => void> = [];
  async function reload() {
    const loaded = await loadSigningKeys(db, store, options.encryptionKey);
    if (loaded.length === 0) return;
    keys = loaded;
    keySet = createLocalJWKSet({ keys: keys.map((key) => key.publicJwk) });
    for (const listener of listeners) listener();
  }
  // A failed reload keeps the keys held; the next NOTIFY or reconnect tries again.
  const reloadOrWarn = () => void reload().catch((error: Error) => options.log.warn('signing keys not reloaded', { table: store.table, error: error.message }));
  await options.notifications.listen(store.channel, reloadOrWarn);
  options.notifications.onReconnect(reloadOrWarn);
  return {
    signingKey() {
      const key = keySigningAt(keys, Date.now());
      return { kid: key.kid, privateKey: key.privateKey };
    },
    publishedJwks: () => ({ keys: keys.map((key) => key.publicJwk) }),
    keySet: (header, token) => keySet(header, token),
    privateJwks() {
      const signing = keySigningAt(keys, Date.now());
      return [signing.privateJwk, ...keys.filter((key) => key !== signing).map((key) => key.privateJwk)];
    },
    onChange: (listener) => void listeners.push(listener),
  };
}
