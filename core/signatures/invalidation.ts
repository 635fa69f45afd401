// Bulk invalidation of a petition's signatures (fraud investigation), run by workflows/signature-invalidation.ts in keyset batches over
// signatures_petition_recent_idx, each one short transaction, so locks last one batch whatever the petition's size. At the end the count is reconciled exactly
// against the signatures themselves.
import { randomInt } from 'node:crypto';
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { recordAudit, type AuditContext } from '../audit/audit-log.ts';
import { NotFound } from '../errors/domain-error.ts';
import { recordEvent } from '../events/record-event.ts';
import { COUNTER_SHARDS } from './sign.ts';
import { liveSignatureCount } from '../petitions/queries.ts';

/** As the admin wrote it; stored on the invalidation and in its audit row. */
export type InvalidationFilter = { ip_block?: string; network_hash?: string; email_domain?: string; flagged?: boolean; since?: string; until?: string };
/**
 * What the batches match on: ip_block (and network_hash) resolved to network hashes (hex), the domain
 * lower-cased; flaggedOnly (optional: runs started before issue 44 lack it) keeps to flagged signatures.
 */
export type ResolvedFilter = { networkHashes: string[] | null; emailDomain: string | null; flaggedOnly?: boolean; since: string | null; until: string | null };

/**
 * The run that does the work (workflows/signature-invalidation.ts, started by orchestration/): in
 * batches, then reconciled and audited. `ended` settles when it ends, however it ends.
 */
export type InvalidationWorkflows = {
  invalidateSignatures(input: {
    invalidationId: string;
    petitionId: string;
    filter: ResolvedFilter;
    dryRun: boolean;
    audit: AuditContext;
  }): Promise<{ ended: Promise<void> }>;
};

export async function createInvalidation(
  db: CommonQueryMethods,
  input: { petitionId: string; filter: InvalidationFilter; dryRun: boolean; requestedBy: string },
): Promise<string> {
  const exists = await db.exists(sql.type(z.object({}))`SELECT 1 FROM petitions WHERE id = ${input.petitionId} AND deleted_at IS NULL`);
  if (!exists) throw new NotFound('There is no such petition.');
  return db.oneFirst(sql.type(z.object({ id: z.string() }))`
    INSERT INTO signature_invalidations (petition_id, filter, dry_run, requested_by)
    VALUES (${input.petitionId}, ${sql.jsonb(input.filter as never)}, ${input.dryRun}, ${input.requestedBy}) RETURNING id
  `);
}

export const InvalidationRow = z.object({
  id: z.string(),
  petition_id: z.string(),
  filter: z.record(z.string(), z.unknown()),
  dry_run: z.boolean(),
  status: z.string(),
  matched: z.number(),
  signature_count_after: z.number().nullable(),
  requested_by: z.string(),
  created_at: z.string(),
  finished_at: z.string().nullable(),
});

export function findInvalidation(db: CommonQueryMethods, id: string) {
  return db.maybeOne(sql.type(InvalidationRow)`
    SELECT id, petition_id, filter, dry_run, status, matched, signature_count_after, requested_by, created_at, finished_at
    FROM signature_invalidations WHERE id = ${id}
  `);
}

function matches(filter: ResolvedFilter) {
  return sql.join(
    [
      sql.fragment`TRUE`,
      filter.networkHashes
        ? sql.fragment`s.network_hash IN (SELECT decode(hash, 'hex') FROM unnest(${sql.array(filter.networkHashes, 'text')}) AS hash)`
        : null,
      filter.emailDomain
        ? sql.fragment`split_part(COALESCE(s.email_key, (SELECT rally_email_key(u.email) FROM users u WHERE u.id = s.user_id)), '@', 2) = ${filter.emailDomain}`
        : null,
      filter.flaggedOnly ? sql.fragment`s.flags IS NOT NULL` : null,
    ].filter((part) => part !== null),
    sql.fragment` AND `,
  );
}

function batchOf(petitionId: string, filter: ResolvedFilter, after: readonly [string, string] | null, size: number) {
  return sql.fragment`
    SELECT id, created_at FROM signatures
    WHERE petition_id = ${petitionId}
      ${filter.since ? sql.fragment`AND created_at >= ${filter.since}::timestamptz` : sql.fragment``}
      ${filter.until ? sql.fragment`AND created_at < ${filter.until}::timestamptz` : sql.fragment``}
      ${after ? sql.fragment`AND (created_at, id) > (${after[0]}::timestamptz, ${after[1]}::uuid)` : sql.fragment``}
    ORDER BY created_at, id
    LIMIT ${size}`;
}

const BatchOutcome = z.object({
  scanned: z.number(),
  matched: z.number(),
  last_at: z.string().nullable(),
  last_id: z.string().nullable(),
  ids: z.array(z.string()).nullable(),
});
export type BatchInput = { invalidationId: string; petitionId: string; filter: ResolvedFilter; after: [string, string] | null; size: number; dryRun: boolean };
export type BatchResult = { scanned: number; matched: number; after: [string, string] | null };

const LAST_OF_BATCH = sql.fragment`
  (SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') FROM batch ORDER BY created_at DESC, id DESC LIMIT 1) AS last_at,
  (SELECT id::text FROM batch ORDER BY created_at DESC, id DESC LIMIT 1) AS last_id`;

/**
 * One batch: counted (dry run) or moved out of the count, in one transaction.
 * The matching signatures move to invalidated_signatures (kept for audit, no longer counted or listed), their
 * number leaves the counter shards and one signature.removed event announces the batch.
 */
export async function invalidateBatch(db: DatabasePool, input: BatchInput): Promise<BatchResult> {
  const { petitionId, filter } = input;
  const outcome = await db.transaction(async (tx) => {
    const result = input.dryRun
      ? await tx.one(sql.type(BatchOutcome)`
          WITH batch AS (${batchOf(petitionId, filter, input.after, input.size)})
          SELECT (SELECT count(*) FROM batch)::int AS scanned,
            (SELECT count(*) FROM signatures s JOIN batch b ON b.id = s.id WHERE ${matches(filter)})::int AS matched, ${LAST_OF_BATCH}, NULL::text[] AS ids`)
      : await tx.one(sql.type(BatchOutcome)`
          WITH batch AS (${batchOf(petitionId, filter, input.after, input.size)}),
          removed AS (
            DELETE FROM signatures s USING batch b WHERE s.id = b.id AND ${matches(filter)}
            RETURNING s.id, s.petition_id, s.user_id, s.comment, s.is_anonymous, s.display_location, s.city, s.region, s.country, s.latitude, s.longitude,
              s.referrer_id, s.email_key, s.network_hash, s.flags, s.created_at
          ), kept AS (
            INSERT INTO invalidated_signatures (id, invalidation_id, petition_id, user_id, comment, is_anonymous, display_location, city, region, country,
              latitude, longitude, referrer_id, email_key, network_hash, flags, created_at)
            SELECT id, ${input.invalidationId}, petition_id, user_id, comment, is_anonymous, display_location, city, region, country, latitude, longitude,
              referrer_id, email_key, network_hash, flags, created_at FROM removed
            RETURNING id
          ), uncounted AS (
            -- Any shard will do: the count is the sum of them all.
            INSERT INTO signature_counters (petition_id, shard, count)
            SELECT ${petitionId}, ${randomInt(COUNTER_SHARDS)}, -count(*) FROM kept HAVING count(*) > 0
            ON CONFLICT ON CONSTRAINT signature_counters_pkey DO UPDATE SET count = signature_counters.count + EXCLUDED.count
            RETURNING 1
          )
          SELECT (SELECT count(*) FROM batch)::int AS scanned, (SELECT count(*) FROM kept)::int AS matched, ${LAST_OF_BATCH},
            (SELECT array_agg(id::text) FROM kept) AS ids`);
    if (result.ids && result.ids.length > 0) {
      await recordEvent(tx, {
        type: 'signature.removed',
        actor: { type: 'system', id: null },
        petitionId,
        data: { petition_id: petitionId, signature_ids: result.ids, count: result.ids.length, reason: 'invalidated', invalidation_id: input.invalidationId },
      });
    }
    return result;
  });
  return { scanned: outcome.scanned, matched: outcome.matched, after: outcome.last_at && outcome.last_id ? [outcome.last_at, outcome.last_id] : null };
}

/**
 * Re-computes the count exactly: the difference between the signatures and the shards, read in one
 * statement (one snapshot), is added to a shard, so signatures committed concurrently stay counted.
 */
export async function reconcileSignatureCount(db: DatabasePool, petitionId: string): Promise<number> {
  await db.query(sql.typeAlias('void')`
    INSERT INTO signature_counters (petition_id, shard, count)
    SELECT ${petitionId}, 0, drift FROM (
      SELECT (SELECT count(*) FROM signatures WHERE petition_id = ${petitionId})
        - COALESCE((SELECT sum(count) FROM signature_counters WHERE petition_id = ${petitionId}), 0) AS drift
    ) AS measured WHERE drift <> 0
    ON CONFLICT ON CONSTRAINT signature_counters_pkey DO UPDATE SET count = signature_counters.count + EXCLUDED.count
  `);
  return liveSignatureCount(db, petitionId);
}

/** Records the outcome; a real run also gets its one audit row. */
export async function finishInvalidation(db: DatabasePool, input: { invalidationId: string; matched: number; dryRun: boolean; audit: AuditContext }) {
  const invalidation = await findInvalidation(db, input.invalidationId);
  if (!invalidation) throw new NotFound('There is no such invalidation.');
  if (invalidation.status === 'completed') return invalidation;
  const countAfter = input.dryRun ? null : await reconcileSignatureCount(db, invalidation.petition_id);
  await db.transaction(async (tx) => {
    await tx.query(sql.typeAlias('void')`
      UPDATE signature_invalidations SET status = 'completed', matched = ${input.matched}, signature_count_after = ${countAfter}, finished_at = now()
      WHERE id = ${input.invalidationId} AND status = 'running'
    `);
    if (!input.dryRun) {
      await recordAudit(tx, {
        context: input.audit,
        action: 'signatures.invalidated',
        target: { type: 'petition', id: invalidation.petition_id },
        before: { filter: invalidation.filter },
        after: { invalidation_id: input.invalidationId, invalidated: input.matched, signature_count: countAfter },
      });
    }
  });
  return (await findInvalidation(db, input.invalidationId))!;
}
