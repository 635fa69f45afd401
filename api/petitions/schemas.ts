// Shapes of petitions on the wire. Request bodies use camelCase as the spec's PetitionCreate and
// PetitionUpdate do; responses use snake_case like the rest of the API.
import { PETITION_STATUSES, PETITION_VISIBILITIES, SIGNATURE_PRIVACIES } from '../../core/vocabulary.ts';
import { Type, type Static } from '@sinclair/typebox';
import { CursorQuery, LimitQuery, PaginationSchema } from '../http/pagination.ts';
import { PublicProfile } from '../users/schemas.ts';

import { Meta } from '../http/envelopes.ts';

// Only web links: a javascript:, data: or file: URI would run or leak in whatever shows the image.
const WEB_URL_PATTERN = '^[Hh][Tt][Tt][Pp][Ss]?://';
const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

export const Visibility = Type.Union(PETITION_VISIBILITIES.map((value) => Type.Literal(value)));
export const SignaturePrivacy = Type.Union(SIGNATURE_PRIVACIES.map((value) => Type.Literal(value)));
export const Status = Type.Union(PETITION_STATUSES.map((value) => Type.Literal(value)));

const Title = Type.String({ minLength: 5, maxLength: 200 });
const Description = Type.String({ minLength: 50, maxLength: 50000 });
// maxItems is checked in the handler, so that too many tags answer the spec's tag_limit_exceeded.
const Tags = Type.Array(Type.String({ minLength: 1, maxLength: 50 }), { description: 'At most 10.' });

export const DecisionMakerInput = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    title: Type.String({ minLength: 1, maxLength: 200 }),
    email: Type.String({ format: 'email', maxLength: 320 }),
  },
  { additionalProperties: false },
);

export const PetitionCreate = Type.Object(
  {
    title: Title,
    description: Description,
    categoryId: Type.Optional(Type.String({ format: 'uuid' })),
    tags: Type.Optional(Tags),
    imageUrl: Type.Optional(Type.String({ format: 'uri', maxLength: 2048, pattern: WEB_URL_PATTERN, description: 'An http(s) URL.' })),
    signatureGoal: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000_000 })),
    visibility: Type.Optional(Visibility),
    locationCity: Type.Optional(Type.String({ maxLength: 200 })),
    locationRegion: Type.Optional(Type.String({ maxLength: 200 })),
    locationCountry: Type.Optional(Type.String({ maxLength: 200 })),
    signaturePrivacy: Type.Optional(SignaturePrivacy),
    decisionMakers: Type.Optional(Type.Array(DecisionMakerInput, { maxItems: 50 })),
    orgId: Type.Optional(Type.String({ format: 'uuid' })),
  },
  { additionalProperties: false },
);
export type PetitionCreate = Static<typeof PetitionCreate>;

export const PetitionUpdate = Type.Object(
  {
    title: Type.Optional(Title),
    description: Type.Optional(Description),
    categoryId: Type.Optional(Type.String({ format: 'uuid' })),
    tags: Type.Optional(Tags),
    imageUrl: Type.Optional(Type.String({ format: 'uri', maxLength: 2048, pattern: WEB_URL_PATTERN, description: 'An http(s) URL.' })),
    signatureGoal: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000_000 })),
    visibility: Type.Optional(Visibility),
    signaturePrivacy: Type.Optional(SignaturePrivacy),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type PetitionUpdate = Static<typeof PetitionUpdate>;

export const VictoryBody = Type.Object({ victory_message: Type.Optional(Type.String({ maxLength: 10000 })) }, { additionalProperties: false });
export const AccessBody = Type.Object({ accessCode: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false });

export const Category = Type.Object({ id: Type.String({ format: 'uuid' }), slug: Type.String(), name: Type.String() });

export const PetitionLocation = Type.Object({ city: Nullable(Type.String()), region: Nullable(Type.String()), country: Nullable(Type.String()) });

export const PetitionSummary = Type.Object({
  id: Type.String({ format: 'uuid' }),
  slug: Type.String(),
  title: Type.String(),
  description: Type.String(),
  status: Status,
  signature_count: Type.Integer(),
  signature_goal: Type.Union([Type.Integer(), Type.Null()]),
  image_url: Nullable(Type.String()),
  category: Type.Union([Category, Type.Null()]),
  creator: PublicProfile,
  org_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
    description: 'The organization the petition runs under; null once that organization is deleted.',
  }),
  tags: Type.Array(Type.String()),
  visibility: Visibility,
  signature_privacy: SignaturePrivacy,
  location: PetitionLocation,
  victory_message: Nullable(Type.String()),
  access_code: Type.Optional(Type.String({ description: 'Only in answers to the creator of a private petition.' })),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  published_at: Nullable(Type.String({ format: 'date-time' })),
  closed_at: Nullable(Type.String({ format: 'date-time' })),
});

// Composite (one flat object), not Intersect: answers are stripped with removeAdditional, which would
// strip each allOf branch's fields by the other's list.
export const Petition = Type.Composite([
  PetitionSummary,
  Type.Object({
    signer_data_deleted_at: Nullable(Type.String({ format: 'date-time', description: "When the signers' details were deleted; null until then." })),
    signer_data_deletion_due_at: Nullable(
      Type.String({
        format: 'date-time',
        description:
          "When the signers' details of a closed or won petition are deleted (closed_at + RALLY_SIGNER_DATA_RETENTION); " +
          'null while it runs or when the retention is off.',
      }),
    ),
  }),
]);

export const PetitionEnvelope = Type.Object({ data: Petition, meta: Meta });
export const PetitionList = Type.Object({ data: Type.Array(PetitionSummary), pagination: PaginationSchema, meta: Meta });

export const PetitionListQuery = Type.Object(
  {
    status: Type.Optional(Status),
    categoryId: Type.Optional(Type.String({ format: 'uuid' })),
    creatorId: Type.Optional(Type.String({ format: 'uuid' })),
    tags: Type.Optional(Type.String({ maxLength: 600, description: 'Comma-separated; petitions carrying all of them.' })),
    sort: Type.Union([Type.Literal('recent'), Type.Literal('popular'), Type.Literal('trending')], {
      default: 'recent',
      description: 'trending: signatures of the last 7 days, each weighted e^(-age/24h), refreshed every minute.',
    }),
    cursor: Type.Optional(CursorQuery),
    limit: LimitQuery(),
  },
  { additionalProperties: false },
);
export type PetitionListQuery = Static<typeof PetitionListQuery>;

export const PetitionIdParams = Type.Object({ id: Type.String({ format: 'uuid' }) });
// One path parameter for a petition wherever its routes share a path: an id, or (where the route says so) its slug.
export const PetitionRefParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9-]+$', description: 'The petition id, or its slug.' }),
});
export const PetitionReadQuery = Type.Object({ access_code: Type.Optional(Type.String({ maxLength: 64 })) }, { additionalProperties: false });
