// What the `accountDeletion` workflow erases, one bounded batch per call (issue 46). Every step is
// safe to repeat and finds its own rows again, so a run interrupted at any point resumes where it was:
// a row done no longer matches. Each returns how many rows it changed; fewer than `limit` means done.
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { DELETED_BODY } from '../comments/presenter.ts';
import { anonymizeInvalidatedSignatures, anonymizeSignatureBatch, recordAnonymized } from '../signatures/anonymize.ts';
import { originalKey, variantKey, type MediaStorage } from '../../platform/storage/media-storage.ts';
import type { ErasureStep } from '../vocabulary.ts';
import { USER_CHANGED_CHANNEL } from '../users/directory.ts';
import { FORMER_MEMBER_ID } from '../users/former-member.ts';

const Count = z.object({ n: z.number() });

/** A string matched literally by LIKE (backslash is PostgreSQL's default escape). */
const likeEscaped = (text: string) => text.replaceAll('\\', '\\\\').replaceAll('%', '\\%').replaceAll('_', '\\_');

/** Their signatures stripped (core/signatures/anonymize.ts, with its signature.anonymized events), and their name off the signatures they referred. */
async function signatures(tx: CommonQueryMethods, userId: string, limit: number): Promise<number> {
  const own = await anonymizeSignatureBatch(tx, sql.fragment`s.user_id = ${userId}`, limit);
  await recordAnonymized(tx, own.byPetition, 'account_deleted');
  const referred = await tx.query(sql.typeAlias('void')`
    UPDATE signatures SET referrer_id = NULL
    WHERE id IN (SELECT id FROM signatures WHERE referrer_id = ${userId} ORDER BY referrer_id, id LIMIT ${limit} FOR UPDATE SKIP LOCKED)
  `);
  // Few (only what an invalidation set aside), so in one statement.
  await anonymizeInvalidatedSignatures(tx, sql.fragment`(s.user_id = ${userId} OR s.referrer_id = ${userId})`);
  return Math.max(own.anonymized, referred.rowCount);
}

/** Each comment becomes "[deleted]" by the former member; replies keep their place (reply counts drop as on any deletion). */
async function comments(tx: CommonQueryMethods, userId: string, limit: number): Promise<number> {
  const batch = await tx.any(sql.type(z.object({ id: z.string(), parent_id: z.string().nullable(), live: z.boolean() }))`
    SELECT id, parent_id, deleted_at IS NULL AS live FROM comments WHERE user_id = ${userId} ORDER BY user_id, id LIMIT ${limit} FOR UPDATE
  `);
  if (batch.length === 0) return 0;
  const parents = batch.filter((row) => row.live && row.parent_id).map((row) => row.parent_id!);
  if (parents.length > 0) {
    await tx.query(sql.typeAlias('void')`
      UPDATE comments c SET reply_count = c.reply_count - gone.n
      FROM (SELECT id, count(*)::int AS n FROM unnest(${sql.array(parents, 'uuid')}) AS p(id) GROUP BY id) gone WHERE c.id = gone.id
    `);
  }
  await tx.query(sql.typeAlias('void')`
    UPDATE comments SET body = ${DELETED_BODY}, user_id = ${FORMER_MEMBER_ID}, deleted_at = COALESCE(deleted_at, now()), updated_at = now()
    WHERE id = ANY (${sql.array(
      batch.map((row) => row.id),
      'uuid',
    )})
  `);
  return batch.length;
}

/** What they wrote that stays for others: petitions and updates by "a former member"; reports without their name. */
async function authorship(tx: CommonQueryMethods, userId: string, limit: number): Promise<number> {
  const counts = await tx.anyFirst(sql.type(Count)`
    WITH petitions_moved AS (
      UPDATE petitions SET creator_id = ${FORMER_MEMBER_ID}, updated_at = now()
      WHERE id IN (SELECT id FROM petitions WHERE creator_id = ${userId} LIMIT ${limit} FOR UPDATE) RETURNING 1
    ), updates_moved AS (
      UPDATE petition_updates SET author_id = ${FORMER_MEMBER_ID}
      WHERE id IN (SELECT id FROM petition_updates WHERE author_id = ${userId} LIMIT ${limit} FOR UPDATE) RETURNING 1
    ), reports_kept AS (
      UPDATE reports SET reporter_id = NULL, network_hash = NULL
      WHERE id IN (SELECT id FROM reports WHERE reporter_id = ${userId} ORDER BY reporter_id, id LIMIT ${limit} FOR UPDATE) RETURNING 1
    ), reports_resolved AS (
      UPDATE reports SET resolved_by = ${FORMER_MEMBER_ID}
      WHERE id IN (SELECT id FROM reports WHERE resolved_by = ${userId} LIMIT ${limit} FOR UPDATE) RETURNING 1
    )
    SELECT count(*)::int AS n FROM petitions_moved UNION ALL SELECT count(*)::int FROM updates_moved
    UNION ALL SELECT count(*)::int FROM reports_kept UNION ALL SELECT count(*)::int FROM reports_resolved
  `);
  // Rarely more than a handful: what they did as an administrator or as a petition's creator.
  await tx.query(sql.typeAlias('void')`UPDATE user_warnings SET issued_by = ${FORMER_MEMBER_ID} WHERE issued_by = ${userId}`);
  await tx.query(sql.typeAlias('void')`UPDATE signature_invalidations SET requested_by = ${FORMER_MEMBER_ID} WHERE requested_by = ${userId}`);
  await tx.query(sql.typeAlias('void')`UPDATE decision_maker_invitation_log SET creator_id = ${FORMER_MEMBER_ID} WHERE creator_id = ${userId}`);
  return Math.max(0, ...counts);
}

/** Theirs alone: webhooks (with their delivery log), notifications, invitations and guest signatures sent to their address, remembered answers. */
async function belongings(tx: CommonQueryMethods, userId: string, limit: number): Promise<number> {
  const email = await tx.maybeOneFirst(sql.type(z.object({ email: z.string() }))`SELECT email FROM users WHERE id = ${userId}`);
  const counts = await tx.anyFirst(sql.type(Count)`
    WITH hooks AS (
      DELETE FROM webhook_endpoints WHERE id IN (SELECT id FROM webhook_endpoints WHERE user_id = ${userId} LIMIT ${limit}) RETURNING 1
    ), inbox AS (
      DELETE FROM notifications WHERE id IN (SELECT id FROM notifications WHERE user_id = ${userId} LIMIT ${limit}) RETURNING 1
    ), remembered AS (
      DELETE FROM idempotency_keys WHERE (caller_key, idempotency_key) IN (
        SELECT caller_key, idempotency_key FROM idempotency_keys WHERE caller_key = ${`user:${userId}`} LIMIT ${limit}) RETURNING 1
    )
    SELECT count(*)::int AS n FROM hooks UNION ALL SELECT count(*)::int FROM inbox UNION ALL SELECT count(*)::int FROM remembered
  `);
  await tx.query(sql.typeAlias('void')`DELETE FROM rate_limit_buckets WHERE bucket_key LIKE ${`%:${userId}%`}`);
  if (email) {
    // A confirmed one is a signature by now: the request row is only its history.
    await tx.query(sql.typeAlias('void')`DELETE FROM guest_signatures WHERE lower(email) = lower(${email})`);
    await tx.query(sql.typeAlias('void')`DELETE FROM organization_invitations WHERE lower(email) = lower(${email})`);
  }
  return Math.max(0, ...counts);
}

/** Their uploads, stored files first (removing a missing file is no error), then the rows. */
export async function eraseMedia(db: DatabasePool, storage: MediaStorage, userId: string, limit: number): Promise<number> {
  return db.transaction(async (tx) => {
    const rows = await tx.any(sql.type(z.object({ id: z.string(), variants: z.array(z.object({ name: z.string() })) }))`
      SELECT id, variants FROM media WHERE owner_id = ${userId} ORDER BY id LIMIT ${limit} FOR UPDATE
    `);
    for (const row of rows) {
      await storage.remove(originalKey(row.id));
      await Promise.all(row.variants.map((variant) => storage.remove(variantKey(row.id, variant.name))));
    }
    if (rows.length > 0) {
      await tx.query(
        sql.typeAlias('void')`DELETE FROM media WHERE id = ANY (${sql.array(
          rows.map((row) => row.id),
          'uuid',
        )})`,
      );
    }
    return rows.length;
  });
}

/**
 * The outbox keeps what it announced; events that name the person (as actor, or by id or address in
 * their data) keep their type, time, id and petition, and lose the rest. Found by a scan bounded by
 * `limit` matches: a redacted event no longer matches.
 */
async function events(tx: CommonQueryMethods, userId: string, limit: number): Promise<number> {
  const email = await tx.maybeOneFirst(sql.type(z.object({ email: z.string() }))`SELECT email FROM users WHERE id = ${userId}`);
  const mentions = email
    ? sql.fragment`(data::text LIKE ${`%${userId}%`} OR lower(data::text) LIKE ${`%${likeEscaped(email.toLowerCase())}%`})`
    : sql.fragment`data::text LIKE ${`%${userId}%`}`;
  const result = await tx.query(sql.typeAlias('void')`
    UPDATE events SET actor_id = NULL,
      data = jsonb_strip_nulls(jsonb_build_object('id', data -> 'id', 'petition_id', data -> 'petition_id', 'redacted', true))
    WHERE id IN (SELECT id FROM events WHERE (actor_type = 'user' AND actor_id = ${userId}) OR ${mentions} LIMIT ${limit})
  `);
  // Other people's notifications that name them (who commented, who joined) go as well.
  await tx.query(sql.typeAlias('void')`DELETE FROM notifications WHERE data::text LIKE ${`%${userId}%`}`);
  return result.rowCount;
}

const STEPS: Record<Exclude<ErasureStep, 'media'>, (tx: CommonQueryMethods, userId: string, limit: number) => Promise<number>> = {
  signatures,
  comments,
  authorship,
  belongings,
  events,
};

/** One batch of one step, in its own transaction. */
export function eraseBatch(db: DatabasePool, step: Exclude<ErasureStep, 'media'>, userId: string, limit: number): Promise<number> {
  return db.transaction((tx) => STEPS[step](tx, userId, limit));
}

/**
 * The last step: with the user row locked (a signature or comment written from now waits, then fails
 * for want of its user), every step once more for whatever was written while the batches ran, then
 * the row itself, which takes their API keys, sessions, memberships and consents with it. False when
 * there was no row left (already done).
 */
export async function finishErasure(db: DatabasePool, userId: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const locked = await tx.maybeOne(sql.type(z.object({ id: z.string() }))`SELECT id FROM users WHERE id = ${userId} FOR UPDATE`);
    if (!locked) return false;
    for (const step of Object.values(STEPS)) while ((await step(tx, userId, 1000)) >= 1000);
    await tx.query(sql.typeAlias('void')`UPDATE signature_rollup_queue SET referrer_id = NULL WHERE referrer_id = ${userId}`);
    await tx.query(sql.typeAlias('void')`DELETE FROM users WHERE id = ${userId}`);
    await tx.query(sql.typeAlias('void')`SELECT FROM pg_notify(${USER_CHANGED_CHANNEL}, ${userId})`);
    return true;
  });
}
