// Shapes of petition updates on the wire; also the fields the update.created event carries.
import { Type } from '@sinclair/typebox';
import { Meta } from '../http/envelopes.ts';
import { CursorQuery, LimitQuery, PaginationSchema } from '../http/pagination.ts';

export const PetitionUpdateCreate = Type.Object(
  { title: Type.String({ minLength: 1, maxLength: 200 }), body: Type.String({ minLength: 1, maxLength: 10000 }) },
  { additionalProperties: false },
);

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
