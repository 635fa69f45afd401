// Shapes of comments on the wire: the spec's Comment, plus the author's public name (null once the
// comment is deleted), is_deleted and reply_count, which a client needs to render a thread.
import { Type, type Static } from '@sinclair/typebox';
import { CursorQuery, LimitQuery, PaginationSchema } from '../http/pagination.ts';
import { DELETED_BODY } from '../../core/comments/presenter.ts';

import { Meta } from '../http/envelopes.ts';

const CommentBody = Type.String({ minLength: 1, maxLength: 2000 });

export const CommentCreate = Type.Object(
  {
    body: CommentBody,
    parent_id: Type.Optional(Type.String({ format: 'uuid', description: 'The comment this one replies to; a comment on the same petition.' })),
  },
  { additionalProperties: false },
);
export type CommentCreate = Static<typeof CommentCreate>;

export const CommentUpdate = Type.Object({ body: CommentBody }, { additionalProperties: false });

export const CommentListQuery = Type.Object(
  {
    sort: Type.Union([Type.Literal('recent'), Type.Literal('popular')], { default: 'recent', description: 'popular: most replies first, then newest.' }),
    cursor: Type.Optional(CursorQuery),
    limit: LimitQuery(),
  },
  { additionalProperties: false },
);
export type CommentListQuery = Static<typeof CommentListQuery>;

export const CommentParams = Type.Object({ id: Type.String({ format: 'uuid' }) });
export const PetitionParams = Type.Object({ id: Type.String({ format: 'uuid' }) });

export const CommentAuthor = Type.Object({
  id: Type.String({ format: 'uuid' }),
  display_name: Type.String(),
  slug: Type.String(),
  avatar_url: Type.Union([Type.String(), Type.Null()]),
});

const commentFields = {
  id: Type.String({ format: 'uuid' }),
  petition_id: Type.String({ format: 'uuid' }),
  user_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], { description: 'null for a deleted comment.' }),
  parent_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
  body: Type.String({ description: `"${DELETED_BODY}" for a deleted comment kept because it has replies.` }),
  is_hidden: Type.Boolean(),
  is_deleted: Type.Boolean(),
  reply_count: Type.Integer({ description: 'Direct replies that are not deleted.' }),
  author: Type.Union([CommentAuthor, Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
};
// Written out two levels deep rather than as a recursive schema: the API reference inlines every
// schema, and a recursive one would repeat its $id there.
const Reply = Type.Object({
  ...commentFields,
  replies: Type.Array(Type.Unknown(), { description: 'Replies to this reply, in the same shape, oldest first.' }),
});
export const Comment = Type.Object({ ...commentFields, replies: Type.Array(Reply, { description: 'Oldest first.' }) });

export const CommentEnvelope = Type.Object({ data: Comment, meta: Meta });
export const CommentList = Type.Object({ data: Type.Array(Comment), pagination: PaginationSchema, meta: Meta });
