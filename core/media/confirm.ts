// POST /v1/media/confirm: checks what was uploaded, decides what the image will be attached to, and starts its processing workflow, inside one transaction with
// the row locked. A second confirm finds confirmed_at set and starts nothing, so confirming twice processes once. The workflow is started last inside the
// transaction, as for API key rotation: if the start fails, nothing is confirmed.
import { organizationExists } from '../organization-lookups.ts';
import { isOrganizationAdmin } from '../organizations/roles.ts';
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { Conflict, Forbidden, NotFound, TooLarge, ensure } from '../errors/domain-error.ts';
import { findMedia, markConfirmed, markTooLarge, type MediaRow } from './queries.ts';
import { canManage, viewerOf } from '../petitions/policy.ts';
import { findPetitionAccess } from '../petitions/queries.ts';
import { originalKey, type MediaStorage } from '../../platform/storage/media-storage.ts';

/** The image's processing workflow (started by orchestration/, once per upload); a failed start is a 503 and rolls the confirm back. */
export type MediaWorkflows = { processMedia(mediaId: string): Promise<void> };

export type MediaDependencies = {
  db: DatabasePool;
  workflows: MediaWorkflows;
  storage: MediaStorage;
  maxBytes: number;
  uploadUrlTtlMs: number;
  mediaDir: string;
};

/** The uploader as the petition policy sees them: what they may manage is what their image may go onto. */
export const uploader = (media: Pick<MediaRow, 'owner_id'>) => viewerOf({ userId: media.owner_id, role: 'user' });

/** The entity the processed image goes onto, checked against the caller; null attaches nothing. */
async function resolveEntity(tx: CommonQueryMethods, media: MediaRow, entityId: string | undefined): Promise<string | null> {
  if (media.entity_type === 'user_avatar') {
    ensure(entityId === undefined || entityId === media.owner_id, Forbidden, 'An avatar can only be set on your own user.', { code: 'not_owner' });
    return media.owner_id;
  }
  if (media.entity_type === 'petition_image' && entityId) {
    const petition = await findPetitionAccess(tx, entityId);
    ensure(petition, NotFound, `There is no petition ${entityId}.`);
    ensure(canManage(uploader(media), petition), Forbidden, 'Only the creator of this petition may set its image.', { code: 'not_owner' });
  }
  if (media.entity_type === 'org_logo' && entityId) {
    ensure(await organizationExists(tx, entityId), NotFound, `There is no organization ${entityId}.`);
    ensure(await isOrganizationAdmin(tx, entityId, media.owner_id), Forbidden, 'Only an owner or admin of this organization may set its logo.', {
      code: 'organization_role_required',
    });
  }
  // Update images and organization covers are stored as given; their resources link them.
  return entityId ?? null;
}

export async function confirmUpload(deps: MediaDependencies, ownerId: string, input: { media_id: string; entity_id?: string }): Promise<MediaRow> {
  const outcome = await deps.db.transaction(async (tx) => {
    const media = await findMedia(tx, ownerId, input.media_id, { lock: true });
    ensure(media, NotFound, `You have no upload ${input.media_id}.`);
    if (media.confirmed_at) return { media };
    const size = await deps.storage.size(originalKey(media.id));
    ensure(size !== null, Conflict, 'Nothing has been uploaded yet: PUT the file to upload_url first.', { code: 'upload_missing' });
    if (size > deps.maxBytes) {
      await markTooLarge(tx, media.id, size, deps.maxBytes);
      return { tooLarge: size };
    }
    const entityId = await resolveEntity(tx, media, input.entity_id);
    const confirmed = await markConfirmed(tx, media.id, { sizeBytes: size, entityId });
    await deps.workflows.processMedia(media.id);
    return { media: confirmed };
  });
  if ('tooLarge' in outcome) {
    // Committed as failed first, so the state explains itself; the oversized file is not kept.
    await deps.storage.remove(originalKey(input.media_id));
    throw new TooLarge(`The uploaded file is ${outcome.tooLarge} bytes; at most ${deps.maxBytes} are accepted.`, { code: 'file_too_large' });
  }
  return outcome.media;
}
