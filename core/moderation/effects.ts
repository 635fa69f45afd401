// What hiding, restoring and removing mean for each kind of target. Comments and users change in
// the caller's transaction; a petition changes only through its lifecycle workflow, which owns the
// state machine (core/petitions/lifecycle.ts), and is audited in that transition's transaction.
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { recordAudit, type AuditContext } from '../audit/audit-log.ts';
import { softDeleteComment } from '../comments/queries.ts';
import { Conflict, NotFound } from '../errors/domain-error.ts';
import type { Actor } from '../events/record-event.ts';
import type { LifecycleDependencies } from '../petitions/lifecycle.ts';
import { sourcesOf, type PetitionEvent } from '../petitions/transitions.ts';
import { flagUserForReview } from '../users/suspension.ts';
import { removeSignature } from '../signatures/queries.ts';
import type { AuditAction, PetitionStatus } from '../vocabulary.ts';
import type { ModerationTarget } from './reports.ts';

/** The events' `triggered_by` for an audited actor. */
export function eventActorOf(audit: AuditContext): Actor {
  if (audit.actorType === 'api_key') return { type: 'api_key', id: audit.credential.replace(/^api_key:/, '') };
  if (audit.actorType === 'user') return { type: 'user', id: audit.actorId };
  return { type: 'system', id: null };
}

/** Hides or shows a comment; false when it already was so (or is deleted). */
export async function setCommentHidden(tx: CommonQueryMethods, commentId: string, hidden: boolean, audit: AuditContext): Promise<boolean> {
  const changed = await tx.maybeOne(sql.type(z.object({ id: z.string() }))`
    UPDATE comments SET is_hidden = ${hidden}, updated_at = now() WHERE id = ${commentId} AND deleted_at IS NULL AND is_hidden <> ${hidden} RETURNING id
  `);
  if (!changed) return false;
  await recordAudit(tx, {
    context: audit,
    action: hidden ? 'comment.hidden' : 'comment.unhidden',
    target: { type: 'comment', id: commentId },
    before: { is_hidden: !hidden },
    after: { is_hidden: hidden },
  });
  return true;
}

export async function removeComment(tx: CommonQueryMethods, commentId: string, audit: AuditContext): Promise<boolean> {
  if (!(await softDeleteComment(tx, commentId))) return false;
  await recordAudit(tx, {
    context: audit,
    action: 'comment.removed',
    target: { type: 'comment', id: commentId },
    before: { is_deleted: false },
    after: { is_deleted: true },
  });
  return true;
}

const PetitionStatusRow = z.object({ status: z.string() });

type PetitionMove = { update: PetitionEvent; from: readonly string[]; action: AuditAction };
export const PETITION_MOVES = {
  hold: { update: 'holdForReview', from: sourcesOf('holdForReview'), action: 'petition.under_review' },
  release: { update: 'releaseFromReview', from: sourcesOf('releaseFromReview'), action: 'petition.restored' },
  close: { update: 'adminClose', from: sourcesOf('adminClose'), action: 'petition.closed_by_admin' },
} as const satisfies Record<string, PetitionMove>;

/**
 * The petition's status when `move` may start from it; otherwise null, or with `strict` a 409. A
 * missing petition is a 404 either way.
 */
export async function movableFrom(db: CommonQueryMethods, petitionId: string, move: PetitionMove, strict: boolean): Promise<{ status: string } | null> {
  const current = await db.maybeOne(sql.type(PetitionStatusRow)`SELECT status FROM petitions WHERE id = ${petitionId} AND deleted_at IS NULL`);
  if (!current) throw new NotFound('There is no such petition.');
  if (move.from.includes(current.status)) return current;
  if (strict) throw new Conflict(`Only a ${move.from.join(' or ')} petition can be moved so; this one is ${current.status}.`, { code: 'invalid_transition' });
  return null;
}

/**
 * Moves a petition through its workflow. `strict`: a petition in another state is a 409 (the admin
 * routes); otherwise it is left as it is (moderation effects: a closed petition needs no hold).
 */
export async function movePetition(
  deps: LifecycleDependencies & { db: DatabasePool },
  petitionId: string,
  move: PetitionMove,
  audit: AuditContext,
  strict: boolean,
): Promise<boolean> {
  const current = await movableFrom(deps.db, petitionId, move, strict);
  if (!current) return false;
  try {
    await deps.workflows.transitionPetition(move.update, petitionId, current.status as PetitionStatus, {
      actor: eventActorOf(audit),
      audit: { context: audit, action: move.action },
    });
    return true;
  } catch (error) {
    // Another transition won the race: as above, only the admin routes report it.
    if (!strict && error instanceof Conflict) return false;
    throw error;
  }
}

export type EffectDependencies = LifecycleDependencies & { db: DatabasePool };

/** Hide pending review (auto-hide and the reviewer's `hide`): comment hidden, petition under review, user flagged. */
export async function hideTarget(deps: EffectDependencies, target: ModerationTarget, audit: AuditContext): Promise<boolean> {
  if (target.type === 'petition') return movePetition(deps, target.id, PETITION_MOVES.hold, audit, false);
  return deps.db.transaction((tx) =>
    target.type === 'comment' ? setCommentHidden(tx, target.id, true, audit) : flagUserForReview(tx, target.id, true, audit),
  );
}

/** Undo of hideTarget (the reviewer's `restore`). */
export async function restoreTarget(deps: EffectDependencies, target: ModerationTarget, audit: AuditContext): Promise<boolean> {
  if (target.type === 'petition') return movePetition(deps, target.id, PETITION_MOVES.release, audit, false);
  return deps.db.transaction((tx) =>
    target.type === 'comment' ? setCommentHidden(tx, target.id, false, audit) : flagUserForReview(tx, target.id, false, audit),
  );
}

/** Who is answerable for a target: a comment's author, a petition's creator, the user themselves. */
export async function authorOf(db: CommonQueryMethods, target: ModerationTarget): Promise<string> {
  if (target.type === 'user') return target.id;
  const author = await db.maybeOneFirst(
    target.type === 'comment'
      ? sql.type(z.object({ user_id: z.string() }))`SELECT user_id FROM comments WHERE id = ${target.id}`
      : sql.type(z.object({ user_id: z.string() }))`SELECT creator_id AS user_id FROM petitions WHERE id = ${target.id}`,
  );
  if (!author) throw new NotFound(`There is no such ${target.type}.`);
  return author;
}

/** An admin removes one signature: the count drops and signature.removed is emitted; the new count. */
export async function removeSignatureByAdmin(db: DatabasePool, petitionId: string, signatureId: string, audit: AuditContext): Promise<number> {
  const signer = await db.maybeOneFirst(sql.type(z.object({ user_id: z.string() }))`
    SELECT user_id FROM signatures WHERE id = ${signatureId} AND petition_id = ${petitionId}
  `);
  const count = signer ? await removeSignature(db, petitionId, signer, eventActorOf(audit)) : null;
  if (count === null) throw new NotFound('There is no such signature on this petition.');
  await recordAudit(db, {
    context: audit,
    action: 'signature.removed_by_admin',
    target: { type: 'signature', id: signatureId },
    before: { petition_id: petitionId, user_id: signer },
    after: { signature_count: count },
  });
  return count;
}
