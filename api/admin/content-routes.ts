// Admin actions on content: hide and unhide comments, move a petition into or out of review or
// close it (through the petition's workflow, which owns its state machine), and remove a signature.
// Unhiding a comment or restoring a petition also resolves its open reports as restored.
import type { DatabasePool } from 'slonik';
import { auditContextOf } from '../../core/audit/audit-log.ts';
import { findComment } from '../../core/comments/queries.ts';
import { withReplies } from '../../core/comments/presenter.ts';
import { ensure, NotFound } from '../../core/errors/domain-error.ts';
import { resolveReportsOfRestored } from '../../core/moderation/restoring.ts';
import { movableFrom, movePetition, PETITION_MOVES, removeSignatureByAdmin, setCommentHidden } from '../../core/moderation/effects.ts';
import type { ModerationTarget } from '../../core/moderation/reports.ts';
import type { ModerationWorkflows } from '../../core/moderation/workflow-port.ts';
import type { PetitionWorkflows } from '../../core/petitions/lifecycle.ts';
import { toPetitionDetail } from '../../core/petitions/presenter.ts';
import { findPetitionById } from '../../core/petitions/queries.ts';
import type { SignatureFeed } from '../../core/signatures/live-feed.ts';
import { CommentEnvelope } from '../comments/schemas.ts';
import { sendData } from '../http/context.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { NOT_FOR_APPS } from '../../core/auth/scopes.ts';
import { PetitionEnvelope } from '../petitions/schemas.ts';
import { IdParams, SignatureParams } from './schemas.ts';

const tag = 'Admin';

export function createAdminContentRoutes(deps: {
  db: DatabasePool;
  workflows: ModerationWorkflows & PetitionWorkflows;
  feed: SignatureFeed;
  /** RALLY_SIGNER_DATA_RETENTION (null: off), for the petition's signer-data dates. */
  signerDataRetentionMs: number | null;
}): AnyRouteSpec[] {
  const { db } = deps;
  // The target's moderation workflow recounts and, with no report left open, ends.
  const recount = async (target: ModerationTarget, resolved: readonly string[]) => {
    if (resolved.length > 0) await deps.workflows.reportFiled(target, resolved[0]!);
  };
  const commentRoute = (verb: 'hide' | 'unhide') =>
    defineRoute({
      method: 'post',
      path: `/v1/admin/comments/:id/${verb}`,
      operationId: `adminComment${verb === 'hide' ? 'Hide' : 'Unhide'}`,
      tag,
      auth: 'required',
      scope: NOT_FOR_APPS,
      permission: 'admin',
      summary: verb === 'hide' ? 'Hide a comment' : 'Unhide a comment',
      description: verb === 'hide' ? 'Hide a comment: it leaves the public lists at once.' : 'Show a hidden comment again.',
      params: IdParams,
      responses: { 200: { description: 'The comment', schema: CommentEnvelope }, 404: { description: 'No such comment' } },
      async handler(ctx, { params }) {
        const audit = auditContextOf(ctx.state.principal!, ctx.state.requestId);
        ensure(await findComment(db, params.id), NotFound, 'There is no such comment.');
        const target = { type: 'comment' as const, id: params.id };
        const resolved = await db.transaction(async (tx) => {
          await setCommentHidden(tx, params.id, verb === 'hide', audit);
          return verb === 'unhide' ? resolveReportsOfRestored(tx, target, audit) : [];
        });
        await recount(target, resolved);
        sendData(ctx, (await withReplies(db, [(await findComment(db, params.id))!]))[0]);
      },
    });

  const petitionRoute = (verb: 'close' | 'review' | 'restore', summary: string, description: string) =>
    defineRoute({
      method: 'post',
      path: `/v1/admin/petitions/:id/${verb}`,
      operationId: `adminPetition${verb[0]!.toUpperCase()}${verb.slice(1)}`,
      tag,
      auth: 'required',
      scope: NOT_FOR_APPS,
      permission: 'admin',
      summary,
      description,
      params: IdParams,
      responses: {
        200: { description: 'The petition in its new state', schema: PetitionEnvelope },
        404: { description: 'No such petition' },
        409: { description: 'Not in a state this move starts from' },
      },
      async handler(ctx, { params }) {
        const move = verb === 'close' ? PETITION_MOVES.close : verb === 'review' ? PETITION_MOVES.hold : PETITION_MOVES.release;
        const audit = auditContextOf(ctx.state.principal!, ctx.state.requestId);
        if (verb === 'restore') {
          // The open reports are resolved before the petition is active again: a moderation round that
          // counted them while it was under review would otherwise hide it again on that stale count.
          const target = { type: 'petition' as const, id: params.id };
          await movableFrom(db, params.id, move, true);
          const resolved = await db.transaction((tx) => resolveReportsOfRestored(tx, target, audit));
          await movePetition(deps, params.id, move, audit, true);
          await recount(target, resolved);
        } else await movePetition(deps, params.id, move, audit, true);
        sendData(ctx, toPetitionDetail((await findPetitionById(db, params.id))!, undefined, deps.signerDataRetentionMs));
      },
    });

  return [
    commentRoute('hide'),
    commentRoute('unhide'),
    petitionRoute('close', 'Close a petition as administrator', 'Close an active or under-review petition (petition.closed is emitted).'),
    petitionRoute(
      'review',
      'Put a petition under review',
      'Put an active petition under review: it stops taking signatures and leaves listings and search, keeping its signatures.',
    ),
    petitionRoute('restore', 'Release a petition from review', 'Release a petition from review: it is active again.'),
    defineRoute({
      method: 'delete',
      path: '/v1/admin/petitions/:id/signatures/:signature_id',
      operationId: 'adminRemoveSignature',
      tag,
      auth: 'required',
      scope: NOT_FOR_APPS,
      permission: 'admin',
      summary: 'Remove a signature',
      description: 'Remove one signature (signature.removed is emitted; the count drops).',
      params: SignatureParams,
      responses: { 204: { description: 'Removed' }, 404: { description: 'No such signature on this petition' } },
      async handler(ctx, { params }) {
        const audit = auditContextOf(ctx.state.principal!, ctx.state.requestId);
        const count = await removeSignatureByAdmin(db, params.id, params.signature_id, audit);
        deps.feed.publish({ type: 'signature.removed', petition_id: params.id, signature_count: count, created_at: new Date().toISOString() });
        ctx.status = 204;
      },
    }),
  ];
}
