// The creator's choice at deletion (issue 46): their active petitions closed, each through its own
// petition workflow as any close is, before the erasure hands them to "a former member". A petition
// already closed by an earlier attempt is left as it is (a repeated transition changes nothing).
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import type { Actor } from '../events/record-event.ts';
import type { PetitionWorkflows } from '../petitions/lifecycle.ts';

// Rally closes them on the person's behalf: the event names no one who is being erased.
const SYSTEM: Actor = { type: 'system', id: null };

/** Closes the person's active petitions; returns how many it asked to close. */
export async function closeCreatorPetitions(
  deps: { db: DatabasePool; workflows: Pick<PetitionWorkflows, 'transitionPetition'> },
  userId: string,
): Promise<number> {
  const active = await deps.db.anyFirst(sql.type(z.object({ id: z.string() }))`
    SELECT id FROM petitions WHERE creator_id = ${userId} AND status = 'active' AND deleted_at IS NULL ORDER BY id
  `);
  for (const petitionId of active) {
    await deps.workflows.transitionPetition('close', petitionId, 'active', { actor: SYSTEM });
  }
  return active.length;
}
