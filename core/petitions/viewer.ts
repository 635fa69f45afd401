// The viewer of a request, complete: viewerOf (core/petitions/policy.ts) knows the user and their
// platform role from the credentials alone; managing an organization's petitions also needs the
// organizations the user administers, read from the database on each call, so a removed admin
// loses their rights on their very next request. Routes that only read public data keep viewerOf.
import type { CommonQueryMethods } from 'slonik';
import type { Principal } from '../auth/principal.ts';
import { administeredOrganizationIds } from '../organizations/roles.ts';
import { ANONYMOUS, viewerOf, type Viewer } from './policy.ts';

export async function loadViewer(db: CommonQueryMethods, principal: Pick<Principal, 'userId' | 'role'> | undefined): Promise<Viewer> {
  if (!principal) return ANONYMOUS;
  return { ...viewerOf(principal), administeredOrganizationIds: await administeredOrganizationIds(db, principal.userId) };
}
