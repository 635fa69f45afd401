// Uploads nobody confirmed (including oversized ones refused at confirm), which would otherwise pile up for ever: the hourly `purge-abandoned-uploads` schedule
// removes them ABANDONED_AFTER_HOURS after they were asked for, the stored original first and then the row, so a crash between the two leaves a row whose file
// a later run removes again (removing a missing object is not an error).
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { originalKey, type MediaStorage } from '../../platform/storage/media-storage.ts';

/** Far past any upload URL's validity (RALLY_UPLOAD_URL_TTL, 15 minutes by default). */
export const ABANDONED_AFTER_HOURS = 24;

/** Removes up to batchSize abandoned uploads; returns how many. Safe to repeat and to run twice at once. */
export function removeAbandonedUploads(db: DatabasePool, storage: MediaStorage, batchSize: number): Promise<number> {
  return db.transaction(async (tx) => {
    // Locked, so a confirm arriving now waits and then finds no upload; SKIP LOCKED leaves a confirm in progress alone.
    const ids = await tx.anyFirst(sql.type(z.object({ id: z.string() }))`
      SELECT id FROM media
      WHERE confirmed_at IS NULL AND created_at < now() - make_interval(hours => ${ABANDONED_AFTER_HOURS})
      ORDER BY created_at LIMIT ${batchSize}
      FOR UPDATE SKIP LOCKED
    `);
    if (ids.length === 0) return 0;
    await Promise.all(ids.map((id) => storage.remove(originalKey(id))));
    await tx.query(sql.typeAlias('void')`DELETE FROM media WHERE id = ANY(${sql.array(ids, 'uuid')})`);
    return ids.length;
  });
}
