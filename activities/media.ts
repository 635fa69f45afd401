// What the media-processing workflow does to an upload. Each step is safe to repeat: a retry after
// a crash rewrites the same variant files and sets the same columns. Problems with the file itself
// (wrong type, undecodable) are non-retryable failures carrying a reason meant for the uploader;
// anything else (storage or database trouble) is thrown as is and retried.
import { FAILURE_TYPES } from '../core/vocabulary.ts';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../db/sql.ts';
import { isOrganizationAdmin } from '../core/organizations/roles.ts';
import { MediaRow, MEDIA_COLUMNS, type MediaVariant } from '../core/media/queries.ts';
import { originalKey, variantKey, type MediaStorage } from '../platform/storage/media-storage.ts';
import { PRIMARY_VARIANT, readDimensions, renderVariant, sniffImageType, VARIANT_PLANS } from './media-images.ts';

/** The failure types the workflow reports to the uploader word for word. */
export const IMAGE_REJECTED = FAILURE_TYPES.imageRejected;

const TYPE_NAMES: Record<string, string> = { 'image/jpeg': 'JPEG', 'image/png': 'PNG', 'image/gif': 'GIF', 'image/webp': 'WebP' };

/** Heartbeats every second while `work` runs, so a worker that dies mid-step is noticed within seconds. */
async function withHeartbeat<T>(work: () => Promise<T>): Promise<T> {
  const context = Context.current();
  const timer = setInterval(() => context.heartbeat(), 1_000);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

export function createMediaActivities({ db, storage }: { db: DatabasePool; storage: MediaStorage }) {
  async function loadMedia(mediaId: string) {
    const row = await db.maybeOne(sql.type(MediaRow)`SELECT ${MEDIA_COLUMNS} FROM media WHERE id = ${mediaId}`);
    if (!row) throw ApplicationFailure.nonRetryable(`media ${mediaId} no longer exists`, IMAGE_REJECTED);
    return row;
  }

  return {
    async markMediaProcessing({ mediaId }: { mediaId: string }): Promise<void> {
      await db.query(sql.typeAlias('void')`
        UPDATE media SET status = 'processing', updated_at = now() WHERE id = ${mediaId} AND status IN ('uploaded', 'processing')
      `);
    },

    /** Checks the real type against the declared one and reads the size, without decoding pixels. */
    async inspectUpload({ mediaId }: { mediaId: string }): Promise<{ width: number; height: number }> {
      const media = await loadMedia(mediaId);
      const original = await withHeartbeat(() => storage.read(originalKey(mediaId)));
      const actual = sniffImageType(original.subarray(0, 16));
      if (actual === null) throw ApplicationFailure.nonRetryable('The file is not a JPEG, PNG, GIF or WebP image.', IMAGE_REJECTED);
      if (actual !== media.content_type) {
        throw ApplicationFailure.nonRetryable(`The file is a ${TYPE_NAMES[actual]} image but was declared as ${media.content_type} ("${media.filename}").`, IMAGE_REJECTED);
      }
      try {
        return await readDimensions(original);
      } catch (error) {
        throw ApplicationFailure.nonRetryable(`The image is corrupt and cannot be decoded: ${(error as Error).message}`, IMAGE_REJECTED);
      }
    },

    /** Renders and stores every variant the entity type needs. */
    async makeMediaVariants({ mediaId }: { mediaId: string }): Promise<MediaVariant[]> {
      const media = await loadMedia(mediaId);
      return withHeartbeat(async () => {
        const original = await storage.read(originalKey(mediaId));
        const variants: MediaVariant[] = [];
        for (const plan of VARIANT_PLANS[media.entity_type]) {
          const rendered = await renderVariant(original, plan).catch((error: Error) => {
            throw ApplicationFailure.nonRetryable(`The image is corrupt and cannot be decoded: ${error.message}`, IMAGE_REJECTED);
          });
          const key = variantKey(mediaId, plan.name);
          await storage.write(key, rendered.body, 'image/webp');
          variants.push({ name: plan.name, url: storage.publicUrl(key), width: rendered.width, height: rendered.height, bytes: rendered.body.length });
        }
        return variants;
      });
    },

    /**
     * Marks the media ready and writes its primary variant onto its entity, in one transaction. Only
     * the uploader's own petition (as its creator), own avatar, or the logo of an organization they administer is ever changed.
     */
    async attachMedia({ mediaId, width, height, variants }: { mediaId: string; width: number; height: number; variants: MediaVariant[] }): Promise<string | null> {
      return db.transaction(async (tx) => {
        const media = await tx.one(sql.type(MediaRow)`
          UPDATE media SET status = 'ready', width = ${width}, height = ${height}, variants = ${sql.jsonb(variants)},
            failure_reason = NULL, processed_at = COALESCE(processed_at, now()), updated_at = now()
          WHERE id = ${mediaId}
          RETURNING ${MEDIA_COLUMNS}
        `);
        const url = variants.find((variant) => variant.name === PRIMARY_VARIANT[media.entity_type])?.url ?? null;
        if (!media.entity_id || !url) return null;
        const attached = z.object({ id: z.string() });
        if (media.entity_type === 'petition_image') {
          const row = await tx.maybeOne(sql.type(attached)`
            UPDATE petitions SET image_url = ${url}, updated_at = now()
            WHERE id = ${media.entity_id} AND creator_id = ${media.owner_id} AND deleted_at IS NULL RETURNING id
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
    },

    async markMediaFailed({ mediaId, reason }: { mediaId: string; reason: string }): Promise<void> {
      await db.query(sql.typeAlias('void')`
        UPDATE media SET status = 'failed', failure_reason = ${reason}, updated_at = now() WHERE id = ${mediaId} AND status <> 'ready'
      `);
    },

    /** The original may carry EXIF location data: once the clean variants exist it is not kept. */
    async discardOriginal({ mediaId }: { mediaId: string }): Promise<void> {
      await storage.remove(originalKey(mediaId));
    },
  };
}

export type MediaActivities = ReturnType<typeof createMediaActivities>;
