// Whether a person has signed a petition, for the pages that show "You signed" instead of the form.
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';

const OwnSignature = z.object({ created_at: z.string(), is_anonymous: z.boolean() });
export type OwnSignature = z.infer<typeof OwnSignature>;

/** The user's signature of the petition (signatures_one_per_user), or null. */
export function findOwnSignature(db: CommonQueryMethods, petitionId: string, userId: string): Promise<OwnSignature | null> {
  return db.maybeOne(sql.type(OwnSignature)`
    SELECT created_at, is_anonymous FROM signatures WHERE petition_id = ${petitionId} AND user_id = ${userId}
  `);
}
