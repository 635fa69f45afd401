// Who may see and manage a petition: the ONE place this rule is written, once in TypeScript (for a
// petition already loaded) and once as Slonik fragments (for queries that filter petitions, which
// all use the alias `p` for the petitions table). test/core/petitions/ checks both against one table.
//
// - Managers: the creator. Organization admins will manage their organization's petitions: fill
//   Viewer.administeredOrganizationIds (see viewerOf) and both `manages` and `managedBy` honour it.
// - Read by link: managers and platform admins always (admins moderate, so they must see drafts,
//   petitions under review and private ones); anyone else once it is published (not a draft nor under
//   review) and, if private, with its access code. Deleted petitions: nobody.
// - Listed (lists, exports, activity pages): public published petitions, plus whatever the viewer
//   manages. Unlisted and private petitions are never listed to others, not even to platform admins:
//   moderation has its own lists.
// - Manage (edit, delete, publish, close, post updates, decision makers, signature export): managers
//   only. Platform admins do not manage others' petitions (spec: ownership rules are for the owner).
// Someone who may not see a petition is told it does not exist (404), except for a private one,
// whose existence is known from its link: that answers 403 until the right code is given.
// - Review notice: a public or unlisted petition under review, which a visitor may not read, is not
//   "not found" on the public page and widget either: they show a notice that it is under review,
//   with none of its content (it is hidden pending review), so shared links and embeds explain themselves.
import { timingSafeEqual } from 'node:crypto';
import type { FragmentSqlToken } from 'slonik';
import { sql } from '../../db/sql.ts';
import type { Principal } from '../auth/principal.ts';
import { Forbidden, NotFound } from '../errors/domain-error.ts';
import type { PetitionStatus, PetitionVisibility } from '../vocabulary.ts';

/** Whoever looks at petitions; built from the request's Principal by viewerOf. */
export type Viewer = {
  userId: string | null;
  role: 'user' | 'admin';
  /** Organizations whose petitions this viewer manages. Empty until organizations exist (extension point). */
  administeredOrganizationIds: readonly string[];
};

export const ANONYMOUS: Viewer = Object.freeze({ userId: null, role: 'user', administeredOrganizationIds: Object.freeze([]) as readonly string[] });

export function viewerOf(principal: Pick<Principal, 'userId' | 'role'> | undefined): Viewer {
  // The organizations issue loads the organizations the principal administers here (or in a loader next to it).
  return principal ? { userId: principal.userId, role: principal.role, administeredOrganizationIds: [] } : ANONYMOUS;
}

/** What the rule looks at; a PetitionRow has all of it (deleted rows are usually filtered out before). */
export type PetitionAccessFacts = {
  creator_id: string;
  org_id: string | null;
  status: PetitionStatus;
  visibility: PetitionVisibility;
  access_code: string | null;
  deleted_at?: string | null;
};

const UNPUBLISHED: readonly PetitionStatus[] = ['draft', 'under_review'];

export function accessCodeMatches(expected: string | null, presented: string | undefined | null): boolean {
  if (!expected || presented === undefined || presented === null) return false;
  const a = Buffer.from(expected.toUpperCase());
  const b = Buffer.from(presented.trim().toUpperCase());
  return a.length === b.length && timingSafeEqual(a, b);
}

function manages(viewer: Viewer, petition: PetitionAccessFacts): boolean {
  if (viewer.userId !== null && petition.creator_id === viewer.userId) return true;
  return petition.org_id !== null && viewer.administeredOrganizationIds.includes(petition.org_id);
}

const isLive = (petition: PetitionAccessFacts) => !petition.deleted_at;
const isPublished = (petition: PetitionAccessFacts) => !UNPUBLISHED.includes(petition.status);

export function canManage(viewer: Viewer, petition: PetitionAccessFacts): boolean {
  return isLive(petition) && manages(viewer, petition);
}

/** Whether the viewer may learn the petition exists (else 404), access code or not. */
export function knowsOf(viewer: Viewer, petition: PetitionAccessFacts): boolean {
  return isLive(petition) && (manages(viewer, petition) || viewer.role === 'admin' || isPublished(petition));
}

export function canRead(viewer: Viewer, petition: PetitionAccessFacts, accessCode?: string | null): boolean {
  if (!knowsOf(viewer, petition)) return false;
  if (manages(viewer, petition) || viewer.role === 'admin') return true;
  return petition.visibility !== 'private' || accessCodeMatches(petition.access_code, accessCode);
}

/** Whether the public page and widget show the viewer a review notice (none of the content) rather than a 404 page. */
export function showsReviewNotice(viewer: Viewer, petition: PetitionAccessFacts): boolean {
  return isLive(petition) && petition.status === 'under_review' && petition.visibility !== 'private' && !canRead(viewer, petition);
}

export function canList(viewer: Viewer, petition: PetitionAccessFacts): boolean {
  return isLive(petition) && (manages(viewer, petition) || (petition.visibility === 'public' && isPublished(petition)));
}

export function assertCanRead<P extends PetitionAccessFacts>(viewer: Viewer, petition: P | null, accessCode?: string | null): asserts petition is P {
  if (!petition || !knowsOf(viewer, petition)) throw new NotFound('There is no such petition.');
  if (!canRead(viewer, petition, accessCode)) {
    throw new Forbidden('This petition is private: its creator or a valid access code is needed.', { code: 'access_code_required' });
  }
}

export function assertCanManage<P extends PetitionAccessFacts>(viewer: Viewer, petition: P | null): asserts petition is P {
  if (!petition || !isLive(petition)) throw new NotFound('There is no such petition.');
  if (!canManage(viewer, petition)) throw new Forbidden('Only the creator of this petition may do this.', { code: 'not_owner' });
}

// --- The same rule in SQL. Literal statuses and visibilities (not parameters) so that PostgreSQL can
// match the partial indexes of db/migrations/0005 (petitions_listed_*_idx).

const LIVE = sql.fragment`p.deleted_at IS NULL`;
const PUBLISHED = sql.fragment`p.status NOT IN ('draft', 'under_review')`;
const FALSE = sql.fragment`false`;

/** `p` is a petition the viewer manages (live or not; combine with the others). */
export function managedBy(viewer: Viewer): FragmentSqlToken {
  const clauses: FragmentSqlToken[] = [];
  if (viewer.userId !== null) clauses.push(sql.fragment`p.creator_id = ${viewer.userId}::uuid`);
  if (viewer.administeredOrganizationIds.length > 0) clauses.push(sql.fragment`p.org_id = ANY(${sql.array([...viewer.administeredOrganizationIds], 'uuid')})`);
  return clauses.length === 0 ? FALSE : sql.fragment`(${sql.join(clauses, sql.fragment` OR `)})`;
}

/** SQL of knowsOf: the viewer may learn `p` exists. */
export function knownTo(viewer: Viewer): FragmentSqlToken {
  const others = viewer.role === 'admin' ? sql.fragment`true` : PUBLISHED;
  return sql.fragment`(${LIVE} AND (${managedBy(viewer)} OR ${others}))`;
}

/** SQL of canRead: the viewer may read `p` by its link (with accessCode for a private one). */
export function visibleTo(viewer: Viewer, accessCode?: string | null): FragmentSqlToken {
  if (viewer.role === 'admin') return knownTo(viewer);
  const unlocked = accessCode ? sql.fragment`(p.visibility <> 'private' OR upper(p.access_code) = upper(btrim(${accessCode}::text)))` : sql.fragment`p.visibility <> 'private'`;
  return sql.fragment`(${LIVE} AND (${managedBy(viewer)} OR (${PUBLISHED} AND ${unlocked})))`;
}

/** SQL of canList: `p` belongs in the viewer's lists and exports. */
export function listedTo(viewer: Viewer): FragmentSqlToken {
  const listed = sql.fragment`p.visibility = 'public' AND ${PUBLISHED}`;
  if (viewer.userId === null && viewer.administeredOrganizationIds.length === 0) return sql.fragment`(${LIVE} AND ${listed})`;
  return sql.fragment`(${LIVE} AND (${managedBy(viewer)} OR (${listed})))`;
}

/** SQL of canManage. */
export function manageableBy(viewer: Viewer): FragmentSqlToken {
  return sql.fragment`(${LIVE} AND ${managedBy(viewer)})`;
}
