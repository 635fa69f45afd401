// SQL for comments. Top-level comments are keyset-paginated on the partial indexes of migration 0005;
// reply_count holds a comment's direct replies that are not deleted, kept in the transaction that
// adds or deletes a reply, so "popular" sorts on a column instead of counting per request.
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { keysetPage, recencyKey } from '../pagination/keyset.ts';

export const CommentRow = z.object({
  id: z.string(),
  petition_id: z.string(),
  user_id: z.string(),
  parent_id: z.string().nullable(),
  body: z.string(),
  is_hidden: z.boolean(),
  is_deleted: z.boolean(),
  reply_count: z.number(),
  depth: z.number(),
  author: z.object({ id: z.string(), display_name: z.string(), slug: z.string(), avatar_url: z.string().nullable() }),
  created_at: z.string(),
  updated_at: z.string(),
});
export type CommentRow = z.infer<typeof CommentRow>;

const COMMENT_SELECT = sql.fragment`
  SELECT c.id, c.petition_id, c.user_id, c.parent_id, c.body, c.is_hidden, c.deleted_at IS NOT NULL AS is_deleted, c.reply_count, c.depth,
    json_build_object('id', u.id, 'display_name', u.display_name, 'slug', u.slug, 'avatar_url', u.avatar_url) AS author,
    c.created_at, c.updated_at
  FROM comments c
  JOIN users u ON u.id = c.user_id`;

/** Where a page starts: after the last row of the previous page, in the sort order's own key. */
export type CommentPage =
  | { sort: 'recent'; after?: readonly [createdAt: string, id: string] }
  | { sort: 'popular'; after?: readonly [replyCount: number, createdAt: string, id: string] };

/**
 * One page of a petition's top-level comments. Hidden ones are left out; a deleted one stays (shown
 * as [deleted]) while it has live replies.
 */
export function listTopLevelComments(db: CommonQueryMethods, petitionId: string, page: CommentPage, limit: number) {
  const keyset =
    page.sort === 'popular'
      ? keysetPage([[sql.fragment`c.reply_count`, 'int8'], ...recencyKey('c')], page.after, 'desc', limit)
      : keysetPage(recencyKey('c'), page.after, 'desc', limit);
  return db.any(sql.type(CommentRow)`
    ${COMMENT_SELECT}
    WHERE c.petition_id = ${petitionId} AND c.parent_id IS NULL AND NOT c.is_hidden
      AND (c.deleted_at IS NULL OR c.reply_count > 0)
      AND ${keyset.where}
    ${keyset.orderAndLimit}
  `);
}

/** How deep replies nest: a top-level comment is 0, a reply to a comment at MAX_COMMENT_DEPTH is refused. */
export const MAX_COMMENT_DEPTH = 5;
/** Replies shown with one page of threads (the oldest ones); reply_count still tells how many there are. */
export const MAX_REPLIES_PER_PAGE = 500;

/**
 * The replies below the given comments, down to MAX_COMMENT_DEPTH, oldest first, at most
 * MAX_REPLIES_PER_PAGE: one query for a whole page. The walk stops at hidden comments, so a hidden
 * reply's own replies are left out with it.
 */
export function listDescendants(db: CommonQueryMethods, rootIds: readonly string[]) {
  if (rootIds.length === 0) return Promise.resolve([]);
  return db.any(sql.type(CommentRow)`
    WITH RECURSIVE thread AS (
      SELECT r.id, 1 AS level FROM comments r WHERE r.parent_id = ANY(${sql.array(rootIds, 'uuid')}) AND NOT r.is_hidden
      UNION ALL
      SELECT r.id, t.level + 1 FROM comments r JOIN thread t ON r.parent_id = t.id WHERE NOT r.is_hidden AND t.level < ${MAX_COMMENT_DEPTH}
    )
    ${COMMENT_SELECT}
    JOIN thread t ON t.id = c.id
    ORDER BY c.created_at, c.id
    LIMIT ${MAX_REPLIES_PER_PAGE}
  `);
}

/** A comment that is not deleted (hidden ones included: the caller decides who may see them). */
export function findComment(db: CommonQueryMethods, id: string) {
  return db.maybeOne(sql.type(CommentRow)`${COMMENT_SELECT} WHERE c.id = ${id} AND c.deleted_at IS NULL`);
}

/**
 * Counts a new reply on its parent, which must be a live, visible comment of the same petition; the
 * row lock taken here also keeps the parent from being deleted under the reply. False: no such parent.
 */
export async function countReplyOnParent(tx: CommonQueryMethods, parentId: string, petitionId: string): Promise<{ depth: number } | null> {
  return tx.maybeOne(sql.type(z.object({ depth: z.number() }))`
    UPDATE comments SET reply_count = reply_count + 1
    WHERE id = ${parentId} AND petition_id = ${petitionId} AND deleted_at IS NULL AND NOT is_hidden
    RETURNING depth
  `);
}

export async function insertComment(
  tx: CommonQueryMethods,
  comment: { petitionId: string; userId: string; parentId: string | null; depth: number; body: string },
) {
  const id = await tx.oneFirst(sql.type(z.object({ id: z.string() }))`
    INSERT INTO comments (petition_id, user_id, parent_id, depth, body)
    VALUES (${comment.petitionId}, ${comment.userId}, ${comment.parentId}, ${comment.depth}, ${comment.body})
    RETURNING id
  `);
  return (await findComment(tx, id))!;
}

/** False when the comment was deleted meanwhile. */
export async function updateCommentBody(db: CommonQueryMethods, id: string, body: string): Promise<boolean> {
  const updated = await db.maybeOne(sql.type(z.object({ id: z.string() }))`
    UPDATE comments SET body = ${body}, updated_at = now() WHERE id = ${id} AND deleted_at IS NULL RETURNING id
  `);
  return updated !== null;
}

/** Soft delete; the parent's reply_count drops in the same transaction. False when already deleted. */
export async function softDeleteComment(tx: CommonQueryMethods, id: string): Promise<boolean> {
  const deleted = await tx.maybeOne(sql.type(z.object({ parent_id: z.string().nullable() }))`
    UPDATE comments SET deleted_at = now(), updated_at = now() WHERE id = ${id} AND deleted_at IS NULL RETURNING parent_id
  `);
  if (!deleted) return false;
  if (deleted.parent_id) {
    await tx.query(sql.typeAlias('void')`UPDATE comments SET reply_count = reply_count - 1 WHERE id = ${deleted.parent_id}`);
  }
  return true;
}
