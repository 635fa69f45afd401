// Reading one petition and the operations of those who manage it (core/petitions/policy.ts says who
// that is): change, delete, and the access-code check of a private petition.
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { recordEvent, type Actor } from '../events/record-event.ts';
import { Forbidden, invalidField, NotFound } from '../errors/domain-error.ts';
import { slugify } from '../slugs.ts';
import { SIGNATURE_PRIVACIES, type SignaturePrivacy } from '../vocabulary.ts';
import type { AccessCodeGuard } from './access-code-guard.ts';
import { assertTagLimit, newAccessCode } from './create.ts';
import { accessCodeMatches, ANONYMOUS, assertCanManage, assertCanRead, canRead, knowsOf, type Viewer } from './policy.ts';
import { toPetitionSummary } from './presenter.ts';
import { findPetitionById, findPetitionBySlug, softDeletePetition, writePetitionChanges, type PetitionEdit, type PetitionRow } from './queries.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A petition by slug or id, whichever `ref` is; null when there is none (deleted ones included). */
export function findPetitionByRef(db: CommonQueryMethods, ref: string) {
  return UUID.test(ref) ? findPetitionById(db, ref) : findPetitionBySlug(db, ref);
}

/** A petition the viewer may read (404 / 403 access_code_required otherwise). */
export async function readablePetition(db: CommonQueryMethods, viewer: Viewer, ref: string, accessCode?: string): Promise<PetitionRow> {
  const petition = await findPetitionByRef(db, ref);
  assertCanRead(viewer, petition, accessCode);
  return petition;
}

/**
 * GET /v1/petitions/{slug}: like readablePetition, but an access code that decides access counts
 * against the guess limit of the client's address.
 */
export async function readPetitionByLink(
  deps: { db: DatabasePool; accessCodeGuard: AccessCodeGuard },
  viewer: Viewer,
  ref: string,
  request: { accessCode?: string; clientIp: string },
) {
  const petition = await findPetitionByRef(deps.db, ref);
  // The code decides only where the viewer knows of the petition but may not read it without one.
  if (petition && request.accessCode !== undefined && knowsOf(viewer, petition) && !canRead(viewer, petition)) {
    await deps.accessCodeGuard.check(petition.id, request.clientIp, accessCodeMatches(petition.access_code, request.accessCode));
  }
  assertCanRead(viewer, petition, request.accessCode);
  return petition;
}

/** POST /v1/petitions/{id}/access: whether a code opens the petition, with the same guess limit. */
export async function checkAccessCode(
  deps: { db: DatabasePool; accessCodeGuard: AccessCodeGuard },
  petitionId: string,
  request: { accessCode: string; clientIp: string },
) {
  const petition = await findPetitionById(deps.db, petitionId);
  // Whoever asks, the answer is the one a stranger holding the link gets.
  if (!petition || !knowsOf(ANONYMOUS, petition)) throw new NotFound('There is no such petition.');
  const valid = canRead(ANONYMOUS, petition, request.accessCode);
  await deps.accessCodeGuard.check(petition.id, request.clientIp, valid);
  if (!valid) throw new Forbidden('The access code is not valid.', { code: 'invalid_access_code' });
}

/** Changes a petition and emits petition.updated with its new state, in one transaction. */
export async function updatePetition(db: DatabasePool, viewer: Viewer, actor: Actor, petitionId: string, edit: PetitionEdit): Promise<PetitionRow> {
  assertTagLimit(edit.tags);
  return db.transaction(async (tx) => {
    const petition = await findPetitionById(tx, petitionId);
    assertCanManage(viewer, petition);
    assertSignaturePrivacyChange(petition, edit.signaturePrivacy);
    // The slug follows the title while the petition is a draft, and is fixed once published.
    const slug = edit.title && petition.status === 'draft' && edit.title !== petition.title ? `${slugify(edit.title)}-${petition.id.slice(0, 6)}` : undefined;
    const accessCode = edit.visibility === 'private' && !petition.access_code ? newAccessCode() : undefined;
    await writePetitionChanges(tx, petitionId, { ...edit, tags: edit.tags && [...new Set(edit.tags)], slug, accessCode });
    const after = (await findPetitionById(tx, petitionId))!;
    await recordEvent(tx, { type: 'petition.updated', actor, petitionId, data: toPetitionSummary(after, undefined) });
    return after;
  });
}

/** Soft delete; the creator's petition count drops with it. */
export async function deletePetition(db: DatabasePool, viewer: Viewer, petitionId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const petition = await findPetitionById(tx, petitionId);
    assertCanManage(viewer, petition);
    await softDeletePetition(tx, petitionId, petition.creator_id);
  });
}

/**
 * Once people have signed, signature privacy may only get stricter (public → creator_only →
 * count_only): they signed under the old promise, and loosening it would expose them.
 */
function assertSignaturePrivacyChange(petition: PetitionRow, next: SignaturePrivacy | undefined): void {
  if (next === undefined || petition.live_signature_count === 0) return;
  if (SIGNATURE_PRIVACIES.indexOf(next) < SIGNATURE_PRIVACIES.indexOf(petition.signature_privacy)) {
    throw invalidField('signaturePrivacy', 'cannot_loosen', `may only become stricter than "${petition.signature_privacy}" once the petition has signatures`);
  }
}
