// /v1/petitions/{id}/comments (threaded list, post a comment or reply) and /v1/comments/{id} (read,
// edit, delete). Who may read or comment follows who may read the petition; only the author edits
// or deletes. Comments raise no webhook events; a reply notifies the parent comment's author in-app.
import { Type } from '@sinclair/typebox';
import type { DatabasePool } from 'slonik';
import { sendData, sendList } from '../http/context.ts';
import { createCursorCodec, paginate } from '../../core/pagination/keyset.ts';
import { assertThat, RallyError } from '../http/problem.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { postComment } from '../../core/comments/post.ts';
import { assertCanRead, viewerOf } from '../../core/petitions/policy.ts';
import { findPetitionById } from '../../core/petitions/queries.ts';
import { findComment, listTopLevelComments, softDeleteComment, updateCommentBody, type CommentRow } from '../../core/comments/queries.ts';
import { withReplies } from '../../core/comments/presenter.ts';
import { CommentCreate, CommentEnvelope, CommentList, CommentListQuery, CommentParams, CommentUpdate, PetitionParams } from './schemas.ts';

const Uuid = Type.String({ format: 'uuid' });
const Timestamp = Type.String({ format: 'date-time' });
const recentCursor = createCursorCodec(Type.Tuple([Timestamp, Uuid]), 'comments:recent');
const popularCursor = createCursorCodec(Type.Tuple([Type.Integer({ minimum: 0 }), Timestamp, Uuid]), 'comments:popular');

function assertAuthor(comment: CommentRow, callerId: string): void {
  if (comment.user_id !== callerId) throw new RallyError('forbidden', 'Only the author of this comment may do this.', { code: 'not_author' });
}

/** Not deleted, and hidden only to its author. */
async function existingComment(db: DatabasePool, id: string, viewerId: string | undefined) {
  const comment = await findComment(db, id);
  assertThat(comment && (!comment.is_hidden || comment.user_id === viewerId), 'not-found', 'There is no such comment.');
  return comment;
}

export function createCommentRoutes(deps: { db: DatabasePool }): AnyRouteSpec[] {
  const { db } = deps;
  const tag = 'Comments';
  return [
    defineRoute({
      method: 'get',
      path: '/v1/petitions/:id/comments',
      operationId: 'listComments',
      tag,
      auth: 'optional',
      scope: 'read:petitions',
      permission: 'read',
      summary: "List a petition's comments",
      description: 'Top-level comments with their replies (oldest first, up to 5 levels and 500 replies per page); hidden comments left out.',
      params: PetitionParams,
      query: CommentListQuery,
      responses: { 200: { description: 'A page of threads', schema: CommentList } },
      async handler(ctx, { params, query }) {
        assertCanRead(viewerOf(ctx.state.principal), await findPetitionById(db, params.id));
        const rows =
          query.sort === 'popular'
            ? await listTopLevelComments(db, params.id, { sort: 'popular', after: popularCursor.decode(query.cursor) }, query.limit)
            : await listTopLevelComments(db, params.id, { sort: 'recent', after: recentCursor.decode(query.cursor) }, query.limit);
        const { page, pagination } = paginate(rows, query.limit, (row) =>
          query.sort === 'popular' ? popularCursor.encode([row.reply_count, row.created_at, row.id]) : recentCursor.encode([row.created_at, row.id]),
        );
        sendList(ctx, await withReplies(db, page), pagination);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/petitions/:id/comments',
      operationId: 'createComment',
      tag,
      auth: 'required',
      scope: 'write:petitions',
      permission: 'write',
      summary: 'Comment on a petition',
      description: 'Comment on a petition, or reply to a comment on it with parent_id.',
      params: PetitionParams,
      body: CommentCreate,
      responses: {
        201: { description: 'The comment', schema: CommentEnvelope },
        422: { description: 'Invalid body, parent_id is not a comment on this petition, or is already 5 levels deep (max_depth)' },
      },
      async handler(ctx, { params, body }) {
        const principal = ctx.state.principal!;
        const comment = await postComment(db, { ...viewerOf(principal), userId: principal.userId }, params.id, {
          parentId: body.parent_id ?? null,
          body: body.body,
        });
        ctx.set('Location', `/v1/comments/${comment.id}`);
        sendData(ctx, comment, 201);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/comments/:id',
      operationId: 'getComment',
      tag,
      auth: 'optional',
      scope: 'read:petitions',
      permission: 'read',
      summary: 'Get a comment',
      description: 'A comment with its replies.',
      params: CommentParams,
      responses: { 200: { description: 'The comment', schema: CommentEnvelope } },
      async handler(ctx, { params }) {
        const viewerId = ctx.state.principal?.userId;
        const comment = await existingComment(db, params.id, viewerId);
        assertCanRead(viewerOf(ctx.state.principal), await findPetitionById(db, comment.petition_id));
        sendData(ctx, (await withReplies(db, [comment]))[0]);
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/comments/:id',
      operationId: 'updateComment',
      tag,
      auth: 'required',
      scope: 'write:petitions',
      permission: 'write',
      summary: 'Edit a comment',
      description: 'Edit your comment.',
      params: CommentParams,
      body: CommentUpdate,
      responses: { 200: { description: 'The comment', schema: CommentEnvelope }, 403: { description: 'Not your comment' } },
      async handler(ctx, { params, body }) {
        const userId = ctx.state.principal!.userId;
        // No petition check: authors keep control of their words even on a petition they can no longer read.
        assertAuthor(await existingComment(db, params.id, userId), userId);
        assertThat(await updateCommentBody(db, params.id, body.body), 'not-found', 'There is no such comment.');
        sendData(ctx, (await withReplies(db, [(await findComment(db, params.id))!]))[0]);
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/comments/:id',
      operationId: 'deleteComment',
      tag,
      auth: 'required',
      scope: 'write:petitions',
      permission: 'destroy',
      summary: 'Delete a comment',
      description: 'Delete your comment (soft: while it has replies it stays in its thread as [deleted]).',
      params: CommentParams,
      responses: { 204: { description: 'Deleted' }, 403: { description: 'Not your comment' } },
      async handler(ctx, { params }) {
        const userId = ctx.state.principal!.userId;
        assertAuthor(await existingComment(db, params.id, userId), userId);
        const deleted = await db.transaction((tx) => softDeleteComment(tx, params.id));
        assertThat(deleted, 'not-found', 'There is no such comment.');
        ctx.status = 204;
      },
    }),
  ];
}
