// What the moderators see of the signatures flagged past a signing threshold (issue 44), per petition: each flagged network block (by keyed hash, never an
// address) and email domain, with how many signatures, when, and how many of their accounts look like a farm's rather than a crowd's. Clearing a subject's
// flags is audit-logged; invalidating them is the bulk invalidation with `flagged: true` (invalidation.ts).
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { recordAudit, type AuditContext } from '../audit/audit-log.ts';
import { NotFound } from '../errors/domain-error.ts';

export const FLAGGED_SUBJECT_TYPES = ['network_block', 'email_domain'] as const;
export type FlaggedSubject = { subject_type: (typeof FLAGGED_SUBJECT_TYPES)[number]; subject: string };

/**
 * An account made this shortly before it signed counts as new.
 * A farm's account: new when it signed, email unverified, nothing else done on Rally.
 */
const NEW_ACCOUNT = '24 hours';

export const FlaggedCrowd = z.object({
  subject_type: z.enum(FLAGGED_SUBJECT_TYPES),
  subject: z.string(),
  flagged: z.number(),
  first_at: z.string(),
  last_at: z.string(),
  new_accounts: z.number(),
  unverified_accounts: z.number(),
  inactive_accounts: z.number(),
});
export type FlaggedCrowd = z.infer<typeof FlaggedCrowd>;

/** The subject a flagged signature `s` is counted under, for each threshold it passed. */
const SUBJECTS = sql.fragment`(VALUES
  ('network_block', CASE WHEN 'network_block' = ANY (s.flags) THEN encode(s.network_hash, 'hex') END),
  ('email_domain', CASE WHEN 'email_domain' = ANY (s.flags) THEN NULLIF(split_part(s.email_key, '@', 2), '') END)) AS f(subject_type, subject)`;

/** The petition's flagged subjects, most flagged signatures first (signatures_flagged_idx). */
export async function listFlaggedCrowds(db: DatabasePool, petitionId: string, limit: number): Promise<readonly FlaggedCrowd[]> {
  const exists = await db.exists(sql.type(z.object({}))`SELECT 1 FROM petitions WHERE id = ${petitionId} AND deleted_at IS NULL`);
  if (!exists) throw new NotFound('There is no such petition.');
  return db.any(sql.type(FlaggedCrowd)`
    WITH flagged AS (
      SELECT s.user_id, s.created_at, f.subject_type, f.subject
      FROM signatures s CROSS JOIN LATERAL ${SUBJECTS}
      WHERE s.petition_id = ${petitionId} AND s.flags IS NOT NULL AND f.subject IS NOT NULL
    ), signers AS (
      SELECT fl.subject_type, fl.subject, fl.created_at,
        COALESCE(u.created_at > fl.created_at - ${NEW_ACCOUNT}::interval, false) AS is_new,
        NOT COALESCE(u.email_verified, false) AS unverified,
        NOT EXISTS (SELECT 1 FROM signatures o WHERE o.user_id = fl.user_id AND o.petition_id <> ${petitionId})
          AND NOT EXISTS (SELECT 1 FROM petitions p WHERE p.creator_id = fl.user_id)
          AND NOT EXISTS (SELECT 1 FROM comments c WHERE c.user_id = fl.user_id) AS inactive
      FROM flagged fl LEFT JOIN users u ON u.id = fl.user_id
    )
    SELECT subject_type, subject, count(*)::int AS flagged, min(created_at) AS first_at, max(created_at) AS last_at,
      count(*) FILTER (WHERE is_new)::int AS new_accounts, count(*) FILTER (WHERE unverified)::int AS unverified_accounts,
      count(*) FILTER (WHERE inactive)::int AS inactive_accounts
    FROM signers GROUP BY subject_type, subject
    ORDER BY count(*) DESC, subject_type, subject
    LIMIT ${limit}
  `);
}

/** A crowd after all: its signatures lose the flag of this subject (not another flag they carry). */
export async function clearFlags(db: DatabasePool, petitionId: string, target: FlaggedSubject, audit: AuditContext): Promise<number> {
  return db.transaction(async (tx) => {
    const matches =
      target.subject_type === 'network_block'
        ? sql.fragment`network_hash = decode(${target.subject}, 'hex')`
        : sql.fragment`split_part(email_key, '@', 2) = ${target.subject.toLowerCase()}`;
    const cleared = await tx.oneFirst(sql.type(z.object({ cleared: z.number() }))`
      WITH cleared AS (
        UPDATE signatures SET flags = NULLIF(array_remove(flags, ${target.subject_type}), '{}')
        WHERE petition_id = ${petitionId} AND flags IS NOT NULL AND ${target.subject_type} = ANY (flags) AND ${matches}
        RETURNING 1
      ) SELECT count(*)::int AS cleared FROM cleared`);
    await recordAudit(tx, {
      context: audit,
      action: 'signatures.flags_cleared',
      target: { type: 'petition', id: petitionId },
      after: { subject_type: target.subject_type, subject: target.subject, cleared },
    });
    return cleared;
  });
}
