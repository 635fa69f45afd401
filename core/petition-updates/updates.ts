// News the creator posts to a petition. Posting emits update.created in the same transaction, so
// webhook subscribers hear about exactly the updates that exist. Lists are newest first,
// keyset-paginated on petition_updates_petition_recent_idx.
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { recordEvent, type Actor } from '../events/record-event.ts';
import { keysetPage, recencyKey } from '../pagination/keyset.ts';
import { assertCanManage, assertCanRead, type Viewer } from '../petitions/policy.ts';
import { findPetitionById } from '../petitions/queries.ts';

const PetitionUpdateRow = z.object({
  id: z.string(),
  petition_id: z.string(),
  author_id: z.string(),
  title: z.string(),
  body: z.string(),
  created_at: z.string(),
});
export type PetitionUpdateRow = z.infer<typeof PetitionUpdateRow>;

const COLUMNS = sql.fragment`id, petition_id, author_id, title, body, created_at`;

/** Posts an update to a petition the viewer manages; emits update.created. */
export async function postPetitionUpdate(
  db: DatabasePool,
  viewer: Viewer & { userId: string },
  actor: Actor,
  petitionId: string,
  update: { title: string; body: string },
) {
  return db.transaction(async (tx) => {
    assertCanManage(viewer, await findPetitionById(tx, petitionId));
    const row = await tx.one(sql.type(PetitionUpdateRow)`
      INSERT INTO petition_updates (petition_id, author_id, title, body)
      VALUES (${petitionId}, ${viewer.userId}, ${update.title}, ${update.body})
      RETURNING ${COLUMNS}
    `);
    await recordEvent(tx, { type: 'update.created', actor, petitionId, data: row });
    return row;
  });
}

/** One page of the updates of a petition the viewer may read (limit + 1 rows, for paginate). */
export async function listPetitionUpdates(
  db: CommonQueryMethods,
  viewer: Viewer,
  petitionId: string,
  after: readonly [string, string] | undefined,
  limit: number,
) {
  assertCanRead(viewer, await findPetitionById(db, petitionId));
  const keyset = keysetPage(recencyKey(), after, 'desc', limit);
  return db.any(sql.type(PetitionUpdateRow)`
    SELECT ${COLUMNS} FROM petition_updates
    WHERE petition_id = ${petitionId} AND ${keyset.where}
    ${keyset.orderAndLimit}
  `);
}
