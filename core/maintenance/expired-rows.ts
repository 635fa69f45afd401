// Housekeeping on the database: removing rows whose time is over. Each call removes a bounded
// batch and is safe to repeat.
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { DAYS_BETWEEN_INVITATIONS_OF_AN_ADDRESS } from '../decision-makers/invitation-budget.ts';

/** Deletes up to batchSize expired idempotency records; returns how many went. */
export async function deleteExpiredIdempotencyKeys(db: CommonQueryMethods, batchSize: number): Promise<number> {
  const result = await db.query(sql.type(z.object({ caller_key: z.string() }))`
    DELETE FROM idempotency_keys
    WHERE (caller_key, idempotency_key) IN (
      SELECT caller_key, idempotency_key FROM idempotency_keys
      WHERE expires_at < now()
      ORDER BY expires_at
      LIMIT ${batchSize}
      FOR UPDATE SKIP LOCKED
    )
    RETURNING caller_key
  `);
  return result.rowCount;
}

/**
 * Forgets rate-limit buckets idle for an hour (they would be full again by now anyway) and
 * decision-maker invitations logged more than a week ago (no budget looks back further).
 */
export async function deleteIdleRateLimitBuckets(db: CommonQueryMethods): Promise<number> {
  const [buckets, invitations] = await Promise.all([
    db.query(sql.typeAlias('void')`DELETE FROM rate_limit_buckets WHERE updated_at < now() - interval '1 hour'`),
    db.query(sql.typeAlias('void')`
      DELETE FROM decision_maker_invitation_log WHERE decision_maker_id IN (
        SELECT decision_maker_id FROM decision_maker_invitation_log
        WHERE invited_at < now() - make_interval(days => ${DAYS_BETWEEN_INVITATIONS_OF_AN_ADDRESS}) LIMIT 10000)
    `),
  ]);
  return buckets.rowCount + invitations.rowCount;
}

/**
 * Deletes, up to batchSize rows per table, what authentication no longer needs: login failures
 * and attempt counters older than a day (every window is shorter), refresh tokens past expiry
 * and the access-token ids kept for their families. Safe to repeat.
 */
export async function deleteExpiredAuthRecords(db: CommonQueryMethods, batchSize: number): Promise<number> {
  const results = await Promise.all([
    db.query(sql.typeAlias('void')`
      DELETE FROM login_failures WHERE id IN (SELECT id FROM login_failures WHERE failed_at < now() - interval '1 day' LIMIT ${batchSize})
    `),
    db.query(sql.typeAlias('void')`
      DELETE FROM login_attempts WHERE (subject, window_start) IN (
        SELECT subject, window_start FROM login_attempts WHERE window_start < now() - interval '1 day' LIMIT ${batchSize})
    `),
    db.query(sql.typeAlias('void')`
      DELETE FROM refresh_tokens WHERE token_hash IN (SELECT token_hash FROM refresh_tokens WHERE expires_at < now() LIMIT ${batchSize})
    `),
    db.query(sql.typeAlias('void')`
      DELETE FROM refresh_token_family_access_tokens WHERE (family_id, jti) IN (
        SELECT family_id, jti FROM refresh_token_family_access_tokens WHERE expires_at < now() LIMIT ${batchSize})
    `),
  ]);
  return results.reduce((sum, result) => sum + result.rowCount, 0);
}
