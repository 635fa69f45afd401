// Who brought the most signers to a petition. A share is a signature made through someone's ?ref=<slug> link (signatures.referrer_id). Ranks follow the list
// order: most shares, then whoever reached the count first, so every sharer has a distinct rank. Suspended users are left out of the ranking; their shares
// still count in totalShares.
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { readablePetition } from './manage.ts';
import type { Viewer } from './policy.ts';

const RankedSharer = z.object({
  user_id: z.string(),
  display_name: z.string(),
  slug: z.string(),
  avatar_url: z.string().nullable(),
  share_count: z.number(),
  rank: z.number(),
});

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

/** The leaderboard of a petition (by slug or id) the viewer may read. */
export async function petitionLeaderboard(db: CommonQueryMethods, viewer: Viewer, ref: string, limit: number) {
  const petition = await readablePetition(db, viewer, ref);
  const callerId = viewer.userId;
  const [rows, total] = await Promise.all([rankedSharers(db, petition.id, limit, callerId), totalShares(db, petition.id)]);
  const own = callerId ? rows.find((row) => row.user_id === callerId) : undefined;
  return {
    topSharers: rows
      .filter((row) => row.rank <= limit)
      .map((row) => ({ userId: row.user_id, displayName: row.display_name, slug: row.slug, avatarUrl: row.avatar_url, shareCount: row.share_count })),
    totalShares: total,
    currentUserRank: own?.rank ?? null,
    currentUserShareCount: callerId ? (own?.share_count ?? 0) : null,
  };
}
