// GET /v1/petitions/{id}/leaderboard (an id or a slug): who brought the most signers to a petition
// (core/petitions/leaderboard.ts ranks them).
import { Type } from '@sinclair/typebox';
import type { DatabasePool } from 'slonik';
import { sendData } from '../http/context.ts';
import { Meta } from '../http/envelopes.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { petitionLeaderboard } from '../../core/petitions/leaderboard.ts';
import { viewerOf } from '../../core/petitions/policy.ts';
import { PetitionRefParams } from './schemas.ts';

const Leaderboard = Type.Object({
  data: Type.Object({
    topSharers: Type.Array(
      Type.Object({
        userId: Type.String({ format: 'uuid' }),
        displayName: Type.String(),
        slug: Type.String(),
        avatarUrl: Type.Union([Type.String(), Type.Null()]),
        shareCount: Type.Integer(),
      }),
    ),
    totalShares: Type.Integer(),
    currentUserRank: Type.Union([Type.Integer(), Type.Null()], { description: 'Your rank; null when you are anonymous or have no shares.' }),
    currentUserShareCount: Type.Union([Type.Integer(), Type.Null()], { description: 'Your shares; null when you are anonymous.' }),
  }),
  meta: Meta,
});

const LeaderboardQuery = Type.Object(
  { limit: Type.Integer({ minimum: 1, maximum: 100, default: 10, description: 'How many top sharers.' }) },
  { additionalProperties: false },
);

export function createLeaderboardRoutes(deps: { db: DatabasePool }): AnyRouteSpec[] {
  const { db } = deps;
  return [
    defineRoute({
      method: 'get',
      path: '/v1/petitions/:id/leaderboard',
      operationId: 'getPetitionLeaderboard',
      tag: 'Petitions',
      auth: 'optional',
      scope: 'read:petitions',
      permission: 'read',
      summary: "Get a petition's top sharers",
      description: 'Top sharers of a petition (signatures made through their ?ref= links); signed-in callers also get their own rank.',
      params: PetitionRefParams,
      query: LeaderboardQuery,
      responses: { 200: { description: 'The leaderboard', schema: Leaderboard } },
      async handler(ctx, { params, query }) {
        sendData(ctx, await petitionLeaderboard(db, viewerOf(ctx.state.principal), params.id, query.limit));
      },
    }),
  ];
}
