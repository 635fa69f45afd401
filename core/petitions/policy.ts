// Who may see and manage a petition, as predicates (for a loaded petition) and Slonik fragments (alias `p` unless given), both drawn from the one definition in
// visibility.ts; test/core/petitions/ checks both against one table. Someone who may not see a petition is told it does not exist (404), except for a private
// one, known from its link: that answers 403 until the right code is given.
import type { FragmentSqlToken } from 'slonik';
import type { Principal } from '../auth/principal.ts';
import { Forbidden, NotFound } from '../errors/domain-error.ts';
import { fragment, holds, type PetitionAccessFacts, type Viewer } from './visibility.ts';

export { accessCodeMatches, type PetitionAccessFacts, type Viewer } from './visibility.ts';

export const ANONYMOUS: Viewer = Object.freeze({ userId: null, role: 'user', administeredOrganizationIds: Object.freeze([]) as readonly string[] });

// Managers: the creator. Organization admins will manage their organization's petitions: fill
// Viewer.administeredOrganizationIds here and both `manages` and `managedBy` honour it.
export function viewerOf(principal: Pick<Principal, 'userId' | 'role'> | undefined): Viewer {
  // The organizations issue loads the organizations the principal administers here (or in a loader next to it).
  return principal ? { userId: principal.userId, role: principal.role, administeredOrganizationIds: [] } : ANONYMOUS;
}

// Manage (edit, delete, publish, close, post updates, decision makers, signature export): managers only.
// Platform admins do not manage others' petitions (spec: ownership rules are for the owner).
export const canManage = (viewer: Viewer, petition: PetitionAccessFacts): boolean => holds('manages', viewer, petition);

/** Whether the viewer may learn the petition exists (else 404), access code or not. */
export const knowsOf = (viewer: Viewer, petition: PetitionAccessFacts): boolean => holds('knows', viewer, petition);

// Read by link: managers and platform admins always (admins moderate, so they must see drafts, petitions under
// review and private ones); anyone else once it is published (not a draft nor under review) and, if private,
// with its access code. Deleted petitions: nobody.
export const canRead = (viewer: Viewer, petition: PetitionAccessFacts, accessCode?: string | null): boolean => holds('reads', viewer, petition, accessCode);

/**
 * Whether the public page and widget show the viewer a review notice (none of the content) rather than a 404 page.
 * Review notice: a public or unlisted petition under review, which a visitor may not read, is not "not found"
 * on the public page and widget either: they show a notice that it is under review, with none of its content,
 * so shared links and embeds explain themselves.
 */
export const showsReviewNotice = (viewer: Viewer, petition: PetitionAccessFacts): boolean => holds('reviewNotice', viewer, petition);

// Listed (lists, exports, activity pages): public published petitions, plus whatever the viewer manages.
// Unlisted and private petitions are never listed to others, not even to platform admins: moderation has its
// own lists.
export const canList = (viewer: Viewer, petition: PetitionAccessFacts): boolean => holds('lists', viewer, petition);

export function assertCanRead<P extends PetitionAccessFacts>(viewer: Viewer, petition: P | null, accessCode?: string | null): asserts petition is P {
  if (!petition || !knowsOf(viewer, petition)) throw new NotFound('There is no such petition.');
  if (!canRead(viewer, petition, accessCode)) {
    throw new Forbidden('This petition is private: its creator or a valid access code is needed.', { code: 'access_code_required' });
  }
}

export function assertCanManage<P extends PetitionAccessFacts>(viewer: Viewer, petition: P | null): asserts petition is P {
  if (!petition || petition.deleted_at) throw new NotFound('There is no such petition.');
  if (!canManage(viewer, petition)) throw new Forbidden('Only the creator of this petition may do this.', { code: 'not_owner' });
}

// --- The same rules in SQL, for a query that reads `FROM petitions <alias>`.

/** SQL of knowsOf: the viewer may learn the petition exists. */
export const knownTo = (viewer: Viewer, alias = 'p'): FragmentSqlToken => fragment('knows', viewer, alias);

/** SQL of canRead: the viewer may read the petition by its link (with accessCode for a private one). */
export const visibleTo = (viewer: Viewer, accessCode?: string | null, alias = 'p'): FragmentSqlToken => fragment('reads', viewer, alias, accessCode);

/** SQL of canList: the petition belongs in the viewer's lists, exports and counts. */
export const listedTo = (viewer: Viewer, alias = 'p'): FragmentSqlToken => fragment('lists', viewer, alias);

/** The viewer is the petition's creator or administers its organization, live or not. */
export const managedBy = (viewer: Viewer, alias = 'p'): FragmentSqlToken => fragment('managed', viewer, alias);

/** SQL of canManage. */
export const manageableBy = (viewer: Viewer, alias = 'p'): FragmentSqlToken => fragment('manages', viewer, alias);
