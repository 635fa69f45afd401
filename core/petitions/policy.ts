// Who may see a petition. public and unlisted: anyone (unlisted is never listed); private: its
// creator, or anyone with the access code; drafts and petitions under review: the creator only.
// Someone who may not see a petition is told it does not exist (404), except for a private one,
// whose existence is known from its link: that answers 403 until the right code is given.
import { timingSafeEqual } from 'node:crypto';
import type { CommonQueryMethods } from 'slonik';
import { Forbidden, invalidField, NotFound } from '../errors/domain-error.ts';
import { isOrganizationAdmin } from '../organizations/roles.ts';
import { SIGNATURE_PRIVACIES, type SignaturePrivacy } from '../vocabulary.ts';
import type { PetitionRow } from './queries.ts';

export function accessCodeMatches(expected: string | null, presented: string | undefined): boolean {
  if (!expected || presented === undefined) return false;
  const a = Buffer.from(expected.toUpperCase());
  const b = Buffer.from(presented.trim().toUpperCase());
  return a.length === b.length && timingSafeEqual(a, b);
}

/** `viewerManages`: the viewer manages the petition (see canManage), so sees it as its creator does. */
export function assertCanRead(petition: PetitionRow | null, viewerId: string | undefined, accessCode?: string, viewerManages = false): asserts petition is PetitionRow {
  if (!petition) throw new NotFound('There is no such petition.');
  if (petition.creator_id === viewerId || viewerManages) return;
  if (petition.status === 'draft' || petition.status === 'under_review') throw new NotFound('There is no such petition.');
  if (petition.visibility === 'private' && !accessCodeMatches(petition.access_code, accessCode)) {
    throw new Forbidden('This petition is private: its creator or a valid access code is needed.', { code: 'access_code_required' });
  }
}

export function assertOwner(petition: PetitionRow | null, callerId: string): asserts petition is PetitionRow {
  if (!petition) throw new NotFound('There is no such petition.');
  if (petition.creator_id !== callerId) throw new Forbidden('Only the creator of this petition may do this.', { code: 'not_owner' });
}

/**
 * Once people have signed, signature privacy may only get stricter (public → creator_only →
 * count_only): they signed under the old promise, and loosening it would expose them.
 */
export function assertSignaturePrivacyChange(petition: PetitionRow, next: SignaturePrivacy | undefined): void {
  if (next === undefined || petition.live_signature_count === 0) return;
  if (SIGNATURE_PRIVACIES.indexOf(next) < SIGNATURE_PRIVACIES.indexOf(petition.signature_privacy)) {
    throw invalidField('signaturePrivacy', 'cannot_loosen', `may only become stricter than "${petition.signature_privacy}" once the petition has signatures`);
  }
}

/**
 * Who manages a petition (update, publish, close, victory, decision makers, analytics): its creator,
 * and the owner and admins of the organization it belongs to. Deleting stays the creator's (assertOwner).
 */
export async function canManage(db: CommonQueryMethods, petition: Pick<PetitionRow, 'creator_id' | 'org_id'>, callerId: string | undefined): Promise<boolean> {
  if (!callerId) return false;
  return petition.creator_id === callerId || (await isOrganizationAdmin(db, petition.org_id, callerId));
}

export async function assertCanManage<P extends Pick<PetitionRow, 'creator_id' | 'org_id'>>(db: CommonQueryMethods, petition: P | null, callerId: string): Promise<P> {
  if (!petition) throw new NotFound('There is no such petition.');
  if (!(await canManage(db, petition, callerId))) {
    throw new Forbidden("Only the creator of this petition or an admin of its organization may do this.", { code: 'not_owner' });
  }
  return petition;
}
