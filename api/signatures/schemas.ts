// Shapes of signatures on the wire.
import { Type } from '@sinclair/typebox';
import { CursorQuery, LimitQuery, PaginationSchema } from '../http/pagination.ts';
import { PublicProfile } from '../users/schemas.ts';

import { Meta } from '../http/envelopes.ts';
const NullableString = Type.Union([Type.String(), Type.Null()]);

export const SignatureCreate = Type.Object(
  {
    comment: Type.Optional(Type.String({ maxLength: 500 })),
    is_anonymous: Type.Optional(Type.Boolean({ default: false })),
    display_location: Type.Optional(Type.String({ maxLength: 200 })),
    recaptchaToken: Type.Optional(Type.String({ maxLength: 4096 })),
    ref: Type.Optional(
      Type.String({ maxLength: 80, pattern: '^[a-z0-9-]+$', description: 'The slug of the user who shared the link (?ref=…): credits them a share.' }),
    ),
    access_code: Type.Optional(Type.String({ maxLength: 64, description: 'Needed to sign a private petition.' })),
    source: Type.Optional(
      Type.String({
        maxLength: 80,
        pattern: '^[a-z0-9][a-z0-9_.:-]*$',
        description: 'Where the signer came from (utm_source): embed, oembed, page, direct, share:<slug>…; shown in the creator’s analytics.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const SignatureCreated = Type.Object({
  data: Type.Object({
    id: Type.String({ format: 'uuid' }),
    petition_id: Type.String({ format: 'uuid' }),
    user_id: Type.String({ format: 'uuid' }),
    is_anonymous: Type.Boolean(),
    signature_count: Type.Integer(),
    milestone_reached: Type.Boolean(),
  }),
  meta: Meta,
});

export const SignatureListItem = Type.Object({
  id: Type.String({ format: 'uuid' }),
  user: Type.Union([PublicProfile, Type.Null()]),
  comment: NullableString,
  is_anonymous: Type.Boolean(),
  display_location: NullableString,
  created_at: Type.String({ format: 'date-time' }),
});

export const SignatureList = Type.Object({
  data: Type.Array(SignatureListItem),
  pagination: Type.Object({ next_cursor: NullableString, has_more: Type.Boolean(), total_count: Type.Integer() }),
  meta: Meta,
});

export const SignatureListQuery = Type.Object({ cursor: Type.Optional(CursorQuery), limit: LimitQuery() }, { additionalProperties: false });
export const PetitionParams = Type.Object({ id: Type.String({ format: 'uuid' }) });

export const GeoParams = Type.Object({
  id: Type.Union([Type.String({ format: 'uuid' }), Type.Literal('global')], { description: 'A petition id, or "global".' }),
});
export const GeoQuery = Type.Object(
  { hours: Type.Integer({ minimum: 1, maximum: 168, default: 24 }), cursor: Type.Optional(CursorQuery), limit: LimitQuery() },
  { additionalProperties: false },
);
export const GeoPoint = Type.Object({
  lat: Type.Number(),
  lng: Type.Number(),
  city: Type.String(),
  region: Type.String(),
  country: Type.String(),
  count: Type.Integer(),
});
export const GeoPointList = Type.Object({ data: Type.Array(GeoPoint), pagination: PaginationSchema, meta: Meta });

export const ExportQuery = Type.Object(
  { format: Type.Union([Type.Literal('csv'), Type.Literal('json')], { default: 'json' }) },
  { additionalProperties: false },
);
