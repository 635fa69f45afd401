// What a user did in public, for their activity pages: only what anyone could already see
// elsewhere. Their signatures that are not anonymous, on petitions anyone may list
// (core/petitions/policy.ts) whose signature list is public; newest first.
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { keysetPage, recencyKey } from '../pagination/keyset.ts';
import { ANONYMOUS, listedTo } from '../petitions/policy.ts';

const UserSignatureRow = z.object({
  id: z.string(),
  petition: z.object({ id: z.string(), slug: z.string(), title: z.string(), status: z.string() }),
  comment: z.string().nullable(),
  display_location: z.string().nullable(),
  created_at: z.string(),
});

/** One page (limit + 1 rows, for paginate) of a user's public signatures. */
export function listPublicSignatures(db: CommonQueryMethods, userId: string, after: readonly [string, string] | undefined, limit: number) {
  const keyset = keysetPage(recencyKey('s'), after, 'desc', limit);
  return db.any(sql.type(UserSignatureRow)`
    SELECT s.id, json_build_object('id', p.id, 'slug', p.slug, 'title', p.title, 'status', p.status) AS petition,
      s.comment, s.display_location, s.created_at
    FROM signatures s JOIN petitions p ON p.id = s.petition_id
    WHERE s.user_id = ${userId} AND NOT s.is_anonymous
      AND ${listedTo(ANONYMOUS)} AND p.signature_privacy = 'public'
      AND ${keyset.where}
    ${keyset.orderAndLimit}
  `);
}
