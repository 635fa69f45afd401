// Shapes of decision makers, their portal and their responses on the wire.
import { Type, type Static } from '@sinclair/typebox';
import { CursorQuery, LimitQuery, PaginationSchema } from '../http/pagination.ts';
import type { DecisionMakerRow, ResponseRow } from '../../core/decision-makers/queries.ts';

import { Meta } from '../http/envelopes.ts';
const Uuid = Type.String({ format: 'uuid' });
const Timestamp = Type.String({ format: 'date-time' });
const MaybeTimestamp = Type.Union([Timestamp, Type.Null()]);

export const DELIVERY_STATUSES = ['pending', 'sent', 'failed', 'viewed', 'responded', 'expired'] as const;
export const RESPONSE_STATUSES = ['acknowledged', 'supportive', 'opposed', 'neutral'] as const;

export const DecisionMakerCreate = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    title: Type.String({ minLength: 1, maxLength: 200 }),
    email: Type.String({ format: 'email', maxLength: 320 }),
  },
  { additionalProperties: false },
);

export const DecisionMaker = Type.Object({
  id: Uuid,
  name: Type.String(),
  title: Type.String(),
  email: Type.String(),
  delivery_status: Type.Union(
    DELIVERY_STATUSES.map((value) => Type.Literal(value)),
    { description: 'pending until invited; then sent or failed; viewed, responded, expired.' },
  ),
  delivery_error: Type.Union([Type.String(), Type.Null()]),
  invited_at: MaybeTimestamp,
  viewed_at: MaybeTimestamp,
  responded_at: MaybeTimestamp,
  expired_at: MaybeTimestamp,
  response_deadline: MaybeTimestamp,
  created_at: Timestamp,
});
export const DecisionMakerEnvelope = Type.Object({ data: DecisionMaker, meta: Meta });
export const DecisionMakerList = Type.Object({ data: Type.Array(DecisionMaker), pagination: PaginationSchema, meta: Meta });

export const PetitionParams = Type.Object({ id: Uuid });
export const DecisionMakerParams = Type.Object({ id: Uuid, decision_maker_id: Uuid });
export const ResponseParams = Type.Object({ id: Uuid, response_id: Uuid });
export const ResponseListQuery = Type.Object(
  { cursor: Type.Optional(CursorQuery), limit: LimitQuery(), access_code: Type.Optional(Type.String({ maxLength: 64 })) },
  { additionalProperties: false },
);
export type ResponseListQuery = Static<typeof ResponseListQuery>;

export const Response = Type.Object({
  id: Uuid,
  petition_id: Uuid,
  decision_maker: Type.Object({ id: Type.Union([Uuid, Type.Null()]), name: Type.String(), title: Type.String() }),
  status: Type.Union(RESPONSE_STATUSES.map((value) => Type.Literal(value))),
  body: Type.String(),
  created_at: Timestamp,
  published_at: MaybeTimestamp,
});
export const ResponseEnvelope = Type.Object({ data: Response, meta: Meta });
export const ResponseList = Type.Object({ data: Type.Array(Response), pagination: PaginationSchema, meta: Meta });

export const PortalParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) });
export const PortalResponseCreate = Type.Object(
  { body: Type.String({ minLength: 1, maxLength: 10000 }), status: Type.Union(RESPONSE_STATUSES.map((value) => Type.Literal(value))) },
  { additionalProperties: false },
);
export const PortalContextEnvelope = Type.Object({
  data: Type.Object({
    petition: Type.Object({
      id: Uuid,
      slug: Type.String(),
      title: Type.String(),
      summary: Type.String(),
      signature_count: Type.Integer(),
      status: Type.String(),
      url: Type.String({ format: 'uri' }),
    }),
    decision_maker: Type.Object({ name: Type.String(), title: Type.String() }),
    response_deadline: Timestamp,
    responded_at: MaybeTimestamp,
  }),
  meta: Meta,
});

export function toDecisionMaker(row: DecisionMakerRow) {
  return {
    id: row.id,
    name: row.name,
    title: row.title,
    email: row.email,
    delivery_status: row.delivery_status,
    delivery_error: row.delivery_error,
    invited_at: row.invited_at,
    viewed_at: row.viewed_at,
    responded_at: row.responded_at,
    expired_at: row.expired_at,
    response_deadline: row.expires_at,
    created_at: row.created_at,
  };
}

export { toResponse } from '../../core/decision-makers/presenter.ts';

const SUMMARY_LENGTH = 280;

/** The petition's summary on the portal: its description cut at a word before 280 characters. */
export function summarize(description: string): string {
  const text = description.replace(/\s+/g, ' ').trim();
  if (text.length <= SUMMARY_LENGTH) return text;
  const cut = text.slice(0, SUMMARY_LENGTH);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), SUMMARY_LENGTH / 2)).trimEnd()}…`;
}
