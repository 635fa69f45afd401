// How a comment is shown. A deleted comment that still has replies keeps its place in the thread
// with a placeholder body and no author (nor author id), so the replies still make sense.
import type { CommentRow } from './queries.ts';

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
