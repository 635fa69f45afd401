// The database side of processing an upload (the media-processing workflow's activities call
// these). Each is safe to repeat.
import { isOrganizationAdmin } from '../organizations/roles.ts';
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { manageableBy } from '../petitions/policy.ts';
import { uploader } from './confirm.ts';
import { MediaRow, MEDIA_COLUMNS, type MediaVariant } from './queries.ts';

export function findMediaById(db: CommonQueryMethods, mediaId: string) {
  return db.maybeOne(sql.type(MediaRow)`SELECT ${MEDIA_COLUMNS} FROM media WHERE id = ${mediaId}`);
}

export async function markMediaProcessing(db: CommonQueryMethods, mediaId: string): Promise<void> {
  await db.query(sql.typeAlias('void')`
    UPDATE media SET status = 'processing', updated_at = now() WHERE id = ${mediaId} AND status IN ('uploaded', 'processing')
  `);
}

export async function markMediaFailed(db: CommonQueryMethods, mediaId: string, reason: string): Promise<void> {
  await db.query(sql.typeAlias('void')`
    UPDATE media SET status = 'failed', failure_reason = ${reason}, updated_at = now() WHERE id = ${mediaId} AND status <> 'ready'
  `);
}

/**
 * Marks the media ready and writes its primary variant (`urlOf` picks it) onto its entity, in one
 * transaction. Only a petition the uploader manages, their own avatar, or the logo of an organization they
 * administer is ever changed. Returns
 * the id of the entity changed, or null.
 */
export function attachMediaVariants(
  db: DatabasePool,
  mediaId: string,
  result: { width: number; height: number; variants: MediaVariant[] },
  urlOf: (media: MediaRow) => string | null,
) {
  return db.transaction(async (tx) => {
    const media = await tx.one(sql.type(MediaRow)`
      UPDATE media SET status = 'ready', width = ${result.width}, height = ${result.height}, variants = ${sql.jsonb(result.variants)},
        failure_reason = NULL, processed_at = COALESCE(processed_at, now()), updated_at = now()
      WHERE id = ${mediaId}
      RETURNING ${MEDIA_COLUMNS}
    `);
    const url = urlOf(media);
    if (!media.entity_id || !url) return null;
    const attached = z.object({ id: z.string() });
    if (media.entity_type === 'petition_image') {
      const row = await tx.maybeOne(sql.type(attached)`
        UPDATE petitions p SET image_url = ${url}, updated_at = now()
        WHERE p.id = ${media.entity_id} AND ${manageableBy(uploader(media))} RETURNING p.id
      `);
      return row?.id ?? null;
    }
    if (media.entity_type === 'user_avatar') {
      const row = await tx.maybeOne(sql.type(attached)`
        UPDATE users SET avatar_url = ${url}, updated_at = now() WHERE id = ${media.owner_id} RETURNING id
      `);
      return row?.id ?? null;
    }
    if (media.entity_type === 'org_logo' && (await isOrganizationAdmin(tx, media.entity_id, media.owner_id))) {
      const row = await tx.maybeOne(sql.type(attached)`
        UPDATE organizations SET logo_url = ${url}, updated_at = now() WHERE id = ${media.entity_id} RETURNING id
      `);
      return row?.id ?? null;
    }
    return null;
  });
}
