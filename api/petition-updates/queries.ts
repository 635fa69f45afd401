// SQL for petition updates: newest first, keyset-paginated on petition_updates_petition_recent_idx.
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';

export const PetitionUpdateRow = z.object({
  id: z.string(),
  petition_id: z.string(),
  author_id: z.string(),
  title: z.string(),
  body: z.string(),
  created_at: z.string(),
  // created_at with its microseconds: the API's ISO strings keep milliseconds only, too coarse for a cursor.
  position_at: z.string(),
});
export type PetitionUpdateRow = z.infer<typeof PetitionUpdateRow>;

const COLUMNS = sql.fragment`id, petition_id, author_id, title, body, created_at,
  to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS position_at`;

export function insertPetitionUpdate(tx: CommonQueryMethods, update: { petitionId: string; authorId: string; title: string; body: string }) {
  return tx.one(sql.type(PetitionUpdateRow)`
    INSERT INTO petition_updates (petition_id, author_id, title, body)
    VALUES (${update.petitionId}, ${update.authorId}, ${update.title}, ${update.body})
    RETURNING ${COLUMNS}
  `);
}

export function listPetitionUpdates(db: CommonQueryMethods, petitionId: string, after: readonly [string, string] | undefined, limit: number) {
  return db.any(sql.type(PetitionUpdateRow)`
    SELECT ${COLUMNS} FROM petition_updates
    WHERE petition_id = ${petitionId}
      ${after ? sql.fragment`AND (created_at, id) < (${after[0]}::timestamptz, ${after[1]}::uuid)` : sql.fragment``}
    ORDER BY created_at DESC, id DESC
    LIMIT ${limit + 1}
  `);
}
