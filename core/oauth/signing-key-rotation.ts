// Rotating the keys that sign app access tokens (issue 27, RFC 9700): run by the Temporal schedule
// `rotate-oauth-signing-keys`. A new key is stored with a signs_from in the future, so every API process
// (told by NOTIFY) and every app that caches /oauth/jwks knows it before the first token it signs. A key
// another key has replaced stays published until the tokens it signed have expired, then it is deleted.
import { createSecretBox } from '../webhooks/signing-secrets.ts';
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { generateSigningKey } from '../auth/sealed-signing-keys.ts';
import { OAUTH_KEYS_LOCK_ID, OAUTH_SIGNING_KEYS_CHANNEL } from './signing-key.ts';

const DAY_MS = 86_400_000;

export type KeyRotationPolicy = {
  /** A key signs this long before the next one is made. */
  rotateAfterMs: number;
  /** How long a new key is published before it signs: longer than any JWKS cache of an app. */
  publishLeadMs: number;
  /** How long a replaced key stays published: at least the longest access token it can have signed. */
  retainAfterReplacedMs: number;
};

/** Monthly keys, announced a day ahead, kept for an access token's lifetime (plus clock skew) once replaced. */
export function keyRotationPolicy(accessTokenTtlMs: number): KeyRotationPolicy {
  return { rotateAfterMs: 30 * DAY_MS, publishLeadMs: DAY_MS, retainAfterReplacedMs: accessTokenTtlMs + 5 * 60_000 };
}

export type KeyRotationOutcome = { created: { kid: string; signsFrom: string } | null; dropped: string[] };

const NewestRow = z.object({ due: z.boolean() });
const CreatedRow = z.object({ kid: z.string(), signs_from: z.string() });

const milliseconds = (ms: number) => sql.fragment`(${ms} * interval '1 millisecond')`;

/** Makes a key when the newest one has signed for rotateAfterMs, and deletes keys replaced long enough ago. Safe to repeat. */
export async function rotateOAuthSigningKeyIfDue(db: DatabasePool, options: { encryptionKey: string; policy: KeyRotationPolicy }): Promise<KeyRotationOutcome> {
  const { policy } = options;
  const box = createSecretBox(options.encryptionKey);
  return db.transaction(async (tx) => {
    await tx.query(sql.typeAlias('void')`SELECT FROM pg_advisory_xact_lock(${OAUTH_KEYS_LOCK_ID})`);
    // Due when no key exists whose signs_from is later than rotateAfterMs ago (a pending key counts: no second one).
    const due = await tx.oneFirst(sql.type(NewestRow)`
      SELECT NOT EXISTS (SELECT FROM oauth_signing_keys WHERE signs_from > now() - ${milliseconds(policy.rotateAfterMs)}) AS due
    `);
    let created: KeyRotationOutcome['created'] = null;
    if (due) {
      const key = await generateSigningKey();
      const row = await tx.one(sql.type(CreatedRow)`
        INSERT INTO oauth_signing_keys (kid, sealed_jwk, signs_from)
        VALUES (${key.kid!}, ${sql.binary(box.seal(JSON.stringify(key)))}, now() + ${milliseconds(policy.publishLeadMs)})
        RETURNING kid, to_char(signs_from AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS signs_from
      `);
      created = { kid: row.kid, signsFrom: row.signs_from };
    }
    // A key was replaced when a newer key began signing; once that is retainAfterReplacedMs ago, its tokens are dead.
    const dropped = await tx.anyFirst(sql.type(z.object({ kid: z.string() }))`
      DELETE FROM oauth_signing_keys old
      WHERE EXISTS (SELECT FROM oauth_signing_keys newer WHERE newer.signs_from > old.signs_from
                    AND newer.signs_from <= now() - ${milliseconds(policy.retainAfterReplacedMs)})
      RETURNING old.kid
    `);
    if (created || dropped.length > 0) await tx.query(sql.typeAlias('void')`SELECT FROM pg_notify(${OAUTH_SIGNING_KEYS_CHANNEL}, '')`);
    return { created, dropped: [...dropped] };
  });
}
