// How a comment is shown, alone and in its thread. A deleted comment that still has replies keeps its
// place in the thread with a placeholder body and no author (nor author id), so the replies still make sense.
import type { CommonQueryMethods } from 'slonik';
import { listDescendants, type CommentRow } from './queries.ts';

/** What a deleted comment that still has replies shows in place of its body. */
export const DELETED_BODY = '[deleted]';

export type CommentView = {
  id: string;
  petition_id: string;
  user_id: string | null;
  parent_id: string | null;
  body: string;
  is_hidden: boolean;
  is_deleted: boolean;
  reply_count: number;
  author: CommentRow['author'] | null;
  created_at: string;
  updated_at: string;
  replies: CommentView[];
};

export function toComment(row: CommentRow, replies: CommentView[]): CommentView {
  return {
    id: row.id,
    petition_id: row.petition_id,
    user_id: row.is_deleted ? null : row.user_id,
    parent_id: row.parent_id,
    body: row.is_deleted ? DELETED_BODY : row.body,
    is_hidden: row.is_hidden,
    is_deleted: row.is_deleted,
    reply_count: row.reply_count,
    author: row.is_deleted ? null : row.author,
    created_at: row.created_at,
    updated_at: row.updated_at,
    replies,
  };
}

/**
 * Threads are put together in memory: the page's top-level comments come from one query and all of
 * their replies from listDescendants, so a page costs two queries however many comments it shows.
 * Built without recursion, deepest rows first, so no thread shape can exhaust the stack.
 */
export async function withReplies(db: CommonQueryMethods, roots: readonly CommentRow[]): Promise<CommentView[]> {
  const descendants = await listDescendants(
    db,
    roots.map((root) => root.id),
  );
  const byDepth = [...descendants].sort((a, b) => b.depth - a.depth);
  // Built replies per parent id; descendants arrive oldest first, and a stable sort keeps that order.
  const built = new Map<string, CommentView[]>();
  const view = (row: CommentRow): CommentView | undefined => {
    const replies = built.get(row.id) ?? [];
    // A deleted comment is kept only as the place its replies hang from.
    return row.is_deleted && replies.length === 0 ? undefined : toComment(row, replies);
  };
  for (const row of byDepth) {
    const shown = view(row);
    if (!shown) continue;
    const siblings = built.get(row.parent_id!) ?? [];
    siblings.push(shown);
    built.set(row.parent_id!, siblings);
  }
  return roots.map(view).filter((comment) => comment !== undefined);
}
