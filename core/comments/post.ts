// Posting a comment or a reply: whoever may read the petition may comment on it. A reply's parent
// must be a live, visible comment of the same petition; its reply count and the notification of
// its author commit with the reply.
import type { DatabasePool } from 'slonik';
import { invalidField } from '../errors/domain-error.ts';
import { notifyCommentReply } from '../notifications/create.ts';
import { assertCanRead, type Viewer } from '../petitions/policy.ts';
import { findPetitionById } from '../petitions/queries.ts';
import { countReplyOnParent, insertComment, MAX_COMMENT_DEPTH } from './queries.ts';
import { withReplies } from './presenter.ts';

export async function postComment(db: DatabasePool, viewer: Viewer & { userId: string }, petitionId: string, input: { parentId: string | null; body: string }) {
  assertCanRead(viewer, await findPetitionById(db, petitionId));
  const { parentId, body } = input;
  const comment = await db.transaction(async (tx) => {
    const parent = parentId ? await countReplyOnParent(tx, parentId, petitionId) : undefined;
    if (parentId && !parent) throw invalidField('parent_id', 'unknown_parent', 'must be a comment on this petition');
    if (parent && parent.depth >= MAX_COMMENT_DEPTH) {
      throw invalidField('parent_id', 'max_depth', `replies nest at most ${MAX_COMMENT_DEPTH} levels deep; reply to a comment higher in the thread`);
    }
    const created = await insertComment(tx, { petitionId, userId: viewer.userId, parentId, depth: parent ? parent.depth + 1 : 0, body });
    if (parentId) {
      await notifyCommentReply(tx, { id: created.id, parentId, petitionId, authorId: viewer.userId, authorName: created.author.display_name, body });
    }
    return created;
  });
  return (await withReplies(db, [comment]))[0]!;
}
