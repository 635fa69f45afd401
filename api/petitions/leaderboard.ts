// GET /v1/petitions/{slug}/leaderboard: who brought the most signers to a petition. A share is a
// signature made through someone's ?ref=<slug> link (signatures.referrer_id). Ranks follow the list
// order: most shares, then whoever reached the count first, so every sharer has a distinct rank.
// Suspended users are left out of the ranking; their shares still count in totalShares.
import { Type } from '@sinclair/typebox';
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { sendData } from '../http/context.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { assertCanRead } from '../../core/petitions/policy.ts';
import { findPetitionById, findPetitionBySlug } from '../../core/petitions/queries.ts';
import { PetitionRefParams } from './schemas.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

import { Meta } from '../http/envelopes.ts';

const Leaderboard = Type.Object({
  data: Type.Object({
    topSharers: Type.Array(
      Type.Object({ userId: Type.String({ format: 'uuid' }), displayName: Type.String(), slug: Type.String(), avatarUrl: Type.Union([Type.String(), Type.Null()]), shareCount: Type.Integer() }),
    ),
    totalShares: Type.Integer(),
    currentUserRank: Type.Union([Type.Integer(), Type.Null()], { description: 'Your rank; null when you are anonymous or have no shares.' }),
    currentUserShareCount: Type.Union([Type.Integer(), Type.Null()], { description: 'Your shares; null when you are anonymous.' }),
  }),
  meta: Meta,
});

const LeaderboardQuery = Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 100, default: 10, description: 'How many top sharers.' }) }, { additionalProperties: false });

const RankedSharer = z.object({ user_id: z.string(), display_name: z.string(), slug: z.string(), avatar_url: z.string().nullable(), share_count: z.number(), rank: z.number() });

/** The top `limit` sharers, plus the caller's own row wherever it ranks. */
function rankedSharers(db: CommonQueryMethods, petitionId: string, limit: number, callerId: string | null) {
  return db.any(sql.type(RankedSharer)`
    WITH sharers AS (
      SELECT referrer_id AS user_id, count(*)::int AS share_count, max(created_at) AS reached_at
      FROM signatures WHERE petition_id = ${petitionId} AND referrer_id IS NOT NULL
      GROUP BY referrer_id
    ), ranked AS (
      SELECT s.user_id, u.display_name, u.slug, u.avatar_url, s.share_count,
        row_number() OVER (ORDER BY s.share_count DESC, s.reached_at, s.user_id)::int AS rank
      FROM sharers s JOIN users u ON u.id = s.user_id AND u.suspended_at IS NULL
    )
    SELECT user_id, display_name, slug, avatar_url, share_count, rank FROM ranked
    WHERE rank <= ${limit} OR user_id = ${callerId}::uuid
    ORDER BY rank
  `);
}

function totalShares(db: CommonQueryMethods, petitionId: string) {
  return db.oneFirst(sql.type(z.object({ total: z.number() }))`
    SELECT count(*)::int AS total FROM signatures WHERE petition_id = ${petitionId} AND referrer_id IS NOT NULL
  `);
}

export function createLeaderboardRoutes(deps: { db: DatabasePool }): AnyRouteSpec[] {
  const { db } = deps;
  return [
    defineRoute({
      method: 'get', path: '/v1/petitions/:slug/leaderboard', operationId: 'getPetitionLeaderboard', tag: 'Petitions', auth: 'optional', permission: 'read',
      summary: 'Top sharers of a petition (signatures made through their ?ref= links); signed-in callers also get their own rank',
      params: PetitionRefParams, query: LeaderboardQuery,
      responses: { 200: { description: 'The leaderboard', schema: Leaderboard } },
      async handler(ctx, { params, query }) {
        const callerId = ctx.state.principal?.userId ?? null;
        const petition = UUID.test(params.slug) ? await findPetitionById(db, params.slug) : await findPetitionBySlug(db, params.slug);
        assertCanRead(petition, callerId ?? undefined);
        const [rows, total] = await Promise.all([rankedSharers(db, petition.id, query.limit, callerId), totalShares(db, petition.id)]);
        const own = callerId ? rows.find((row) => row.user_id === callerId) : undefined;
        sendData(ctx, {
          topSharers: rows
            .filter((row) => row.rank <= query.limit)
            .map((row) => ({ userId: row.user_id, displayName: row.display_name, slug: row.slug, avatarUrl: row.avatar_url, shareCount: row.share_count })),
          totalShares: total,
          currentUserRank: own?.rank ?? null,
          currentUserShareCount: callerId ? (own?.share_count ?? 0) : null,
        });
      },
    }),
  ];
}
