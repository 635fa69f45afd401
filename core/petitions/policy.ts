// Who may see a petition. public and unlisted: anyone (unlisted is never listed); private: its
// creator, or anyone with the access code; drafts and petitions under review: the creator only.
// Someone who may not see a petition is told it does not exist (404), except for a private one,
// whose existence is known from its link: that answers 403 until the right code is given.
import { timingSafeEqual } from 'node:crypto';
import { Forbidden, invalidField, NotFound } from '../errors/domain-error.ts';
import { SIGNATURE_PRIVACIES, type SignaturePrivacy } from '../vocabulary.ts';
import type { PetitionRow } from './queries.ts';

export function accessCodeMatches(expected: string | null, presented: string | undefined): boolean {
  if (!expected || presented === undefined) return false;
  const a = Buffer.from(expected.toUpperCase());
  const b = Buffer.from(presented.trim().toUpperCase());
  return a.length === b.length && timingSafeEqual(a, b);
}

export function assertCanRead(petition: PetitionRow | null, viewerId: string | undefined, accessCode?: string): asserts petition is PetitionRow {
  if (!petition) throw new NotFound('There is no such petition.');
  if (petition.creator_id === viewerId) return;
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
