// Shapes of petition updates (news a creator posts to a petition's supporters) on the wire. The spec
// names the Updates tag without fields; these are the fields the update.created event carries too.
import { Type, type Static } from '@sinclair/typebox';
import { CursorQuery, LimitQuery, PaginationSchema } from '../http/pagination.ts';
import type { PetitionUpdateRow } from './queries.ts';

const Meta = Type.Object({ request_id: Type.String(), timestamp: Type.String({ format: 'date-time' }) });

export const PetitionUpdateCreate = Type.Object(
  { title: Type.String({ minLength: 1, maxLength: 200 }), body: Type.String({ minLength: 1, maxLength: 10000 }) },
  { additionalProperties: false },
);
export type PetitionUpdateCreate = Static<typeof PetitionUpdateCreate>;

export const PetitionUpdate = Type.Object({
  id: Type.String({ format: 'uuid' }),
  petition_id: Type.String({ format: 'uuid' }),
  author_id: Type.String({ format: 'uuid' }),
  title: Type.String(),
  body: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
});

export const PetitionUpdateEnvelope = Type.Object({ data: PetitionUpdate, meta: Meta });
export const PetitionUpdateList = Type.Object({ data: Type.Array(PetitionUpdate), pagination: PaginationSchema, meta: Meta });
export const PetitionUpdateListQuery = Type.Object({ cursor: Type.Optional(CursorQuery), limit: LimitQuery() }, { additionalProperties: false });
export const PetitionParams = Type.Object({ id: Type.String({ format: 'uuid' }) });

export function toPetitionUpdate(row: PetitionUpdateRow) {
  return { id: row.id, petition_id: row.petition_id, author_id: row.author_id, title: row.title, body: row.body, created_at: row.created_at };
}
