// The database side of inviting decision makers, reminding them and expiring their links (the
// decision-maker workflows' activities call these around the email). Only a token's hash is stored.
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { z } from 'zod';
import { afterCommitOf } from '../../db/commit-barrier.ts';
import { sql } from '../../db/sql.ts';

const Invitee = z.object({
  name: z.string(),
  title: z.string(),
  email: z.string(),
  petition_title: z.string(),
  petition_slug: z.string(),
  signature_count: z.number(),
  decision_maker_id: z.string(),
  petition_id: z.string(),
  token_id: z.string().nullable(),
  sent_at: z.string().nullable(),
  issued_at: z.string().nullable(),
  expires_at: z.string().nullable(),
  responded_at: z.string().nullable(),
  expired_at: z.string().nullable(),
});
export type Invitee = z.infer<typeof Invitee>;

const INVITEE_SELECT = sql.fragment`
  SELECT d.name, d.title, d.email, p.title AS petition_title, p.slug AS petition_slug,
    (SELECT coalesce(sum(count), 0) FROM signature_counters WHERE petition_id = p.id)::bigint AS signature_count,
    d.id AS decision_maker_id, p.id AS petition_id, t.id AS token_id, t.sent_at, t.created_at AS issued_at, t.expires_at,
    t.responded_at, t.expired_at
  FROM petition_decision_makers d
  JOIN petitions p ON p.id = d.petition_id AND p.deleted_at IS NULL
  LEFT JOIN response_tokens t ON t.decision_maker_id = d.id`;

/** A decision maker of a live petition, by their id or their token's, with their token's state. */
export function findInvitee(db: CommonQueryMethods, by: { decisionMakerId: string } | { tokenId: string }) {
  const where = 'tokenId' in by ? sql.fragment`t.id = ${by.tokenId}` : sql.fragment`d.id = ${by.decisionMakerId}`;
  return db.maybeOne(sql.type(Invitee)`${INVITEE_SELECT} WHERE ${where}`);
}

/** The commit barrier (db/commit-barrier.ts) between adding a petition's decision makers and inviting them. */
export const invitationBarrier = (petitionId: string) => `decision-maker-invitations:${petitionId}`;

/** Decision makers of the petition without a sent invitation (all of them, or those named), once their adding committed. */
export async function listUninvitedDecisionMakers(db: DatabasePool, petitionId: string, decisionMakerIds?: string[]): Promise<string[]> {
  await afterCommitOf(db, invitationBarrier(petitionId));
  const ids = await db.anyFirst(sql.type(z.object({ id: z.string() }))`
    SELECT d.id FROM petition_decision_makers d LEFT JOIN response_tokens t ON t.decision_maker_id = d.id
    WHERE d.petition_id = ${petitionId} AND t.sent_at IS NULL
      ${decisionMakerIds ? sql.fragment`AND d.id = ANY(${sql.array(decisionMakerIds, 'uuid')})` : sql.fragment``}
    ORDER BY d.created_at, d.id
  `);
  return [...ids];
}

/** Stores a fresh token hash for an invitation not sent yet; null when it was sent meanwhile. */
export function storeUnsentToken(db: CommonQueryMethods, invitee: Pick<Invitee, 'decision_maker_id' | 'petition_id'>, tokenHash: Buffer, ttlMs: number) {
  return db.maybeOne(sql.type(z.object({ id: z.string(), created_at: z.string(), expires_at: z.string() }))`
    INSERT INTO response_tokens (decision_maker_id, petition_id, token_hash, expires_at)
    VALUES (${invitee.decision_maker_id}, ${invitee.petition_id}, ${sql.binary(tokenHash)}, now() + make_interval(secs => ${ttlMs / 1000}))
    ON CONFLICT ON CONSTRAINT response_tokens_one_per_decision_maker DO UPDATE
      SET token_hash = EXCLUDED.token_hash, created_at = now(), expires_at = EXCLUDED.expires_at
      WHERE response_tokens.sent_at IS NULL
    RETURNING id, created_at, expires_at
  `);
}

export async function markInvitationSent(db: DatabasePool, tokenId: string, decisionMakerId: string): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query(sql.typeAlias('void')`UPDATE response_tokens SET sent_at = now() WHERE id = ${tokenId}`);
    await tx.query(sql.typeAlias('void')`
      UPDATE petition_decision_makers SET delivery_status = 'sent', delivery_error = NULL, invited_at = now()
      WHERE id = ${decisionMakerId} AND delivery_status IN ('pending', 'failed')
    `);
  });
}

export async function markInvitationFailed(db: CommonQueryMethods, decisionMakerId: string, reason: string): Promise<void> {
  await db.query(sql.typeAlias('void')`
    UPDATE petition_decision_makers SET delivery_status = 'failed', delivery_error = ${reason}
    WHERE id = ${decisionMakerId} AND delivery_status IN ('pending', 'failed')
  `);
}

/** Ends an unanswered token for good; false when it was answered first. Safe to repeat. */
export function expireResponseToken(db: DatabasePool, tokenId: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const expired = await tx.maybeOneFirst(sql.type(z.object({ decision_maker_id: z.string() }))`
      UPDATE response_tokens SET expired_at = COALESCE(expired_at, now()) WHERE id = ${tokenId} AND responded_at IS NULL
      RETURNING decision_maker_id
    `);
    if (!expired) return false;
    await tx.query(sql.typeAlias('void')`
      UPDATE petition_decision_makers SET delivery_status = 'expired', expired_at = COALESCE(expired_at, now())
      WHERE id = ${expired} AND delivery_status IN ('sent', 'viewed')
    `);
    return true;
  });
}
