// What signing needs of the petitions a batch signs: the policy's facts and the goal (its milestones),
// read once per batch for the petitions not read within the last second (a hot petition's batches
// would otherwise read the same row a hundred times a second).
import type { CommonQueryMethods } from 'slonik';
import type { LRUCache } from 'lru-cache';
import { z } from 'zod';
import { prepared, sql } from '../../db/sql.ts';
import { createBoundedLru } from '../../platform/bounded-lru.ts';
import { PETITION_STATUSES, PETITION_VISIBILITIES } from '../vocabulary.ts';

const PetitionFacts = z.object({
  id: z.string(),
  creator_id: z.string(),
  org_id: z.string().nullable(),
  status: z.enum(PETITION_STATUSES),
  visibility: z.enum(PETITION_VISIBILITIES),
  access_code: z.string().nullable(),
  signature_goal: z.number().nullable(),
});

/** What the policy and the milestones need of the petitions a batch signs (one read per batch, of those not cached). */
export function petitionFactsStatement(ids: readonly string[]) {
  return prepared(
    'rally_sign_petition_facts',
    sql.type(PetitionFacts)`
      SELECT id, creator_id, org_id, status, visibility, access_code, signature_goal
      FROM petitions WHERE id = ANY(${sql.array([...ids], 'uuid')}) AND deleted_at IS NULL
    `,
  );
}

export type PetitionFactsRow = z.infer<typeof PetitionFacts>;

/**
 * Facts read lately, kept a second at most: a change of visibility, access code or goal reaches signing
 * within FACTS_TTL_MS; a petition closed or deleted meanwhile still takes no signature, as the signing
 * statement checks its status itself.
 */
export type PetitionFactsCache = LRUCache<string, PetitionFactsRow>;
const FACTS_TTL_MS = 1_000;
const FACTS_CACHED = 10_000;

export const createPetitionFactsCache = (): PetitionFactsCache => createBoundedLru<string, PetitionFactsRow>(FACTS_CACHED, { ttl: FACTS_TTL_MS });

/**
 * The facts of the petitions named that exist and are not deleted, from the cache when it has them,
 * except where `refuses` says a request would be refused on them: a refusal is never answered from
 * facts up to a second old (a petition restored or made public a moment ago takes its signatures).
 */
export async function readPetitionFacts(
  db: CommonQueryMethods,
  ids: readonly string[],
  cache?: PetitionFactsCache,
  refuses: (petition: PetitionFactsRow) => boolean = () => false,
): Promise<Map<string, PetitionFactsRow>> {
  const found = new Map<string, PetitionFactsRow>();
  const missing = ids.filter((id) => {
    const hit = cache?.get(id);
    if (hit && !refuses(hit)) found.set(id, hit);
    return !found.has(id);
  });
  if (missing.length === 0) return found;
  for (const row of await db.any(petitionFactsStatement(missing))) {
    found.set(row.id, row);
    cache?.set(row.id, row);
  }
  return found;
}
