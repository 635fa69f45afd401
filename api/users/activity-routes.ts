// What a user did in public: GET /v1/users/{slug}/petitions (deprecated for GET /v1/petitions?creatorId=, to be removed in v2.0) and GET
// /v1/users/{slug}/signatures. Both show only what anyone could already see elsewhere: public, published petitions, and signatures that are neither anonymous
// nor on a petition whose signature list is private.
import { Type } from '@sinclair/typebox';
import type { DatabasePool } from 'slonik';
import { sendList } from '../http/context.ts';
import { announceDeprecation } from '../http/deprecation.ts';
import { CursorQuery, LimitQuery, PaginationSchema, sendKeysetList } from '../http/pagination.ts';
import { createCursorCodec, paginate } from '../../core/pagination/keyset.ts';
import { assertThat } from '../http/problem.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { listPetitions, positionOf } from '../../core/petitions/listing.ts';
import { ANONYMOUS } from '../../core/petitions/policy.ts';
import { listPublicSignatures } from '../../core/users/activity.ts';
import { toPetitionSummary } from '../../core/petitions/presenter.ts';
import { PetitionList } from '../petitions/schemas.ts';
import { findUserBySlug } from '../../core/users/queries.ts';
import { SlugParams } from './schemas.ts';

import { Meta } from '../http/envelopes.ts';
const ActivityQuery = Type.Object({ cursor: Type.Optional(CursorQuery), limit: LimitQuery() }, { additionalProperties: false });

const UserSignature = Type.Object({
  id: Type.String({ format: 'uuid' }),
  petition: Type.Object({ id: Type.String({ format: 'uuid' }), slug: Type.String(), title: Type.String(), status: Type.String() }),
  comment: Type.Union([Type.String(), Type.Null()]),
  display_location: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
});

const signatureCursor = createCursorCodec(Type.Tuple([Type.String({ format: 'date-time' }), Type.String({ format: 'uuid' })]), 'user-signatures');

export function createUserActivityRoutes(deps: { db: DatabasePool }): AnyRouteSpec[] {
  const { db } = deps;
  const userNamed = async (slug: string) => {
    const user = await findUserBySlug(db, slug);
    assertThat(user, 'not-found', `There is no user "${slug}".`);
    return user;
  };

  return [
    defineRoute({
      method: 'get',
      path: '/v1/users/:slug/petitions',
      operationId: 'listUserPetitions',
      tag: 'Users',
      auth: 'none',
      deprecated: true,
      summary: "List a user's petitions",
      description: "A user's public petitions, newest first (deprecated: use GET /v1/petitions?creatorId=; removed in v2.0).",
      params: SlugParams,
      query: ActivityQuery,
      responses: { 200: { description: 'A page of petitions; Deprecation, Sunset and a successor Link header come with it', schema: PetitionList } },
      async handler(ctx, { params, query }) {
        const user = await userNamed(params.slug);
        announceDeprecation(ctx, 'userPetitionsListing', `</v1/petitions?creatorId=${user.id}>; rel="successor-version"`);
        // No caller id: even the user themselves sees only the public list here.
        const rows = await listPetitions(db, { sort: 'recent', creatorId: user.id, cursor: query.cursor, limit: query.limit }, ANONYMOUS);
        const { page, pagination } = paginate(rows, query.limit, (row) => positionOf('recent', row));
        sendList(
          ctx,
          page.map((row) => toPetitionSummary(row, undefined)),
          pagination,
        );
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/users/:slug/signatures',
      operationId: 'listUserSignatures',
      tag: 'Users',
      auth: 'none',
      summary: "List a user's signatures",
      description: "A user's public signatures, newest first (not anonymous ones, nor those on petitions with private signature lists).",
      params: SlugParams,
      query: ActivityQuery,
      responses: {
        200: { description: 'A page of signatures', schema: Type.Object({ data: Type.Array(UserSignature), pagination: PaginationSchema, meta: Meta }) },
      },
      async handler(ctx, { params, query }) {
        const user = await userNamed(params.slug);
        await sendKeysetList(ctx, query, {
          cursor: signatureCursor,
          rows: (after, limit) => listPublicSignatures(db, user.id, after, limit),
          position: (row) => [row.created_at, row.id],
          present: (row) => row,
        });
      },
    }),
  ];
}
