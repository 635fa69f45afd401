// The viewer of a request, complete: viewerOf (core/petitions/policy.ts) knows the user and their platform role from the credentials alone; managing an
// organization's petitions also needs the organizations the user administers, read from the database on each call, so a removed admin loses their rights on
// their very next request. Routes that only read public data keep viewerOf.
import type { CommonQueryMethods } from 'slonik';
import type { Principal } from '../auth/principal.ts';
import { administeredOrganizationIds } from '../organization-lookups.ts';
import { ANONYMOUS, viewerOf, type PetitionAccessFacts, type Viewer } from './policy.ts';

/**
 * The viewer, with the organizations they administer. Given the one petition the request is about,
 * those are read only when they can change the answer: when the petition belongs to an organization
 * and the viewer is not its creator.
 */
export async function loadViewer(
  db: CommonQueryMethods,
  principal: Pick<Principal, 'userId' | 'role'> | undefined,
  about?: PetitionAccessFacts | null,
): Promise<Viewer> {
  if (!principal) return ANONYMOUS;
  if (about !== undefined && (about === null || about.org_id === null || about.creator_id === principal.userId)) return viewerOf(principal);
  return { ...viewerOf(principal), administeredOrganizationIds: await administeredOrganizationIds(db, principal.userId) };
}
