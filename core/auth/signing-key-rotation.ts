// Rotating the app-token keys and the embedded identity provider's (RFC 9700; issues 27 and 42), both by
// the Temporal schedule `rotate-oauth-signing-keys`: a new key is published before it signs, a replaced
// one until the tokens it signed have expired.
import { createSecretBox } from '../webhooks/signing-secrets.ts';
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { generateSigningKey } from './sealed-signing-keys.ts';
import type { RotatingKeyStore } from './rotating-signing-keys.ts';

const DAY_MS = 86_400_000;

export type KeyRotationPolicy = {
  /** A key signs this long before the next one is made. */
  rotateAfterMs: number;
  /** How long a new key is published before it signs: longer than any JWKS cache of an app. */
  publishLeadMs: number;
  /** How long a replaced key stays published: at least the longest access token it can have signed. */
  retainAfterReplacedMs: number;
};

/** Monthly keys, announced a day ahead, kept for an access (and ID) token's lifetime (plus clock skew) once replaced. */
export function keyRotationPolicy(accessTokenTtlMs: number): KeyRotationPolicy {
  return { rotateAfterMs: 30 * DAY_MS, publishLeadMs: DAY_MS, retainAfterReplacedMs: accessTokenTtlMs + 5 * 60_000 };
}

export type KeyRotationOutcome = { created: { kid: string; signsFrom: string } | null; dropped: string[] };

const NewestRow = z.object({ due: z.boolean() });
const CreatedRow = z.object({ kid: z.string(), signs_from: z.string() });

const milliseconds = (ms: number) => sql.fragment`(${ms} * interval '1 millisecond')`;

/**
 * Makes a key when the newest one has signed for rotateAfterMs, and deletes keys replaced long enough
 * ago. The new key's signs_from is in the future, so every process of its issuer (told by NOTIFY) and
 * every client that caches the JWKS knows it before the first token it signs. Safe to repeat.
 */
export async function rotateSigningKeyIfDue(
  db: DatabasePool,
  store: RotatingKeyStore,
  options: { encryptionKey: string; policy: KeyRotationPolicy },
): Promise<KeyRotationOutcome> {
  const { policy } = options;
  const box = createSecretBox(options.encryptionKey);
  const table = sql.identifier([store.table]);
  return db.transaction(async (tx) => {
    await tx.query(sql.typeAlias('void')`SELECT FROM pg_advisory_xact_lock(${store.lockId})`);
    // Due when no key exists whose signs_from is later than rotateAfterMs ago (a pending key counts: no second one).
    const due = await tx.oneFirst(sql.type(NewestRow)`
      SELECT NOT EXISTS (SELECT FROM ${table} WHERE signs_from > now() - ${milliseconds(policy.rotateAfterMs)}) AS due
    `);
    let created: KeyRotationOutcome['created'] = null;
    if (due) {
      const key = await generateSigningKey();
      const row = await tx.one(sql.type(CreatedRow)`
        INSERT INTO ${table} (kid, sealed_jwk, signs_from)
        VALUES (${key.kid!}, ${sql.binary(box.seal(JSON.stringify(key)))}, now() + ${milliseconds(policy.publishLeadMs)})
        RETURNING kid, to_char(signs_from AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS signs_from
      `);
      created = { kid: row.kid, signsFrom: row.signs_from };
    }
    // A key was replaced when a newer key began signing; once that is retainAfterReplacedMs ago, its tokens are dead.
    const dropped = await tx.anyFirst(sql.type(z.object({ kid: z.string() }))`
      DELETE FROM ${table} old
      WHERE EXISTS (SELECT FROM ${table} newer WHERE newer.signs_from > old.signs_from
                    AND newer.signs_from <= now() - ${milliseconds(policy.retainAfterReplacedMs)})
      RETURNING old.kid
    `);
    if (created || dropped.length > 0) await tx.query(sql.typeAlias('void')`SELECT FROM pg_notify(${store.channel}, '')`);
    return { created, dropped: [...dropped] };
  });
}
