// What the media-processing workflow does to an upload. Each step is safe to repeat: a retry after a crash rewrites the same variant files and sets the same
// columns. Problems with the file itself (wrong type, undecodable) are non-retryable failures carrying a reason meant for the uploader; anything else (storage
// or database trouble) is thrown as is and retried.
import { FAILURE_TYPES } from '../core/vocabulary.ts';
import { ApplicationFailure } from '@temporalio/activity';
import type { DatabasePool } from 'slonik';
import { attachMediaVariants, findMediaById, markMediaFailed, markMediaProcessing } from '../core/media/processing.ts';
import type { MediaVariant } from '../core/media/queries.ts';
import { removeAbandonedUploads } from '../core/media/abandoned.ts';
import { withHeartbeat } from './heartbeat.ts';
import { originalKey, variantKey, type MediaStorage } from '../platform/storage/media-storage.ts';
import { PRIMARY_VARIANT, readDimensions, renderVariant, sniffImageType, VARIANT_PLANS } from './media-images.ts';

/** The failure types the workflow reports to the uploader word for word. */
export const IMAGE_REJECTED = FAILURE_TYPES.imageRejected;

const TYPE_NAMES: Record<string, string> = { 'image/jpeg': 'JPEG', 'image/png': 'PNG', 'image/gif': 'GIF', 'image/webp': 'WebP' };

export function createMediaActivities({ db, storage }: { db: DatabasePool; storage: MediaStorage }) {
  async function loadMedia(mediaId: string) {
    const row = await findMediaById(db, mediaId);
    if (!row) throw ApplicationFailure.nonRetryable(`media ${mediaId} no longer exists`, IMAGE_REJECTED);
    return row;
  }

  return {
    async markMediaProcessing({ mediaId }: { mediaId: string }): Promise<void> {
      await markMediaProcessing(db, mediaId);
    },

    /** Checks the real type against the declared one and reads the size, without decoding pixels. */
    async inspectUpload({ mediaId }: { mediaId: string }): Promise<{ width: number; height: number }> {
      const media = await loadMedia(mediaId);
      const original = await withHeartbeat(() => storage.read(originalKey(mediaId)));
      const actual = sniffImageType(original.subarray(0, 16));
      if (actual === null) throw ApplicationFailure.nonRetryable('The file is not a JPEG, PNG, GIF or WebP image.', IMAGE_REJECTED);
      if (actual !== media.content_type) {
        throw ApplicationFailure.nonRetryable(
          `The file is a ${TYPE_NAMES[actual]} image but was declared as ${media.content_type} ("${media.filename}").`,
          IMAGE_REJECTED,
        );
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
     * a petition the uploader manages, or their own avatar, is ever changed.
     */
    async attachMedia({
      mediaId,
      width,
      height,
      variants,
    }: {
      mediaId: string;
      width: number;
      height: number;
      variants: MediaVariant[];
    }): Promise<string | null> {
      return attachMediaVariants(
        db,
        mediaId,
        { width, height, variants },
        (media) => variants.find((variant) => variant.name === PRIMARY_VARIANT[media.entity_type])?.url ?? null,
      );
    },

    async markMediaFailed({ mediaId, reason }: { mediaId: string; reason: string }): Promise<void> {
      await markMediaFailed(db, mediaId, reason);
    },

    /** The original may carry EXIF location data: once the clean variants exist it is not kept. */
    async discardOriginal({ mediaId }: { mediaId: string }): Promise<void> {
      await storage.remove(originalKey(mediaId));
    },

    /** Uploads never confirmed within a day go, row and stored file; returns how many. Safe to repeat. */
    removeAbandonedUploads: ({ batchSize }: { batchSize: number }): Promise<number> => removeAbandonedUploads(db, storage, batchSize),
  };
}

export type MediaActivities = ReturnType<typeof createMediaActivities>;
