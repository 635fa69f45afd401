// The accountExport workflow's steps on the database and the media storage, each safe to repeat:
// build and store the archive, issue the link (then mailed by the activity), mark the export ready or
// failed, and remove the archive once its link has expired.
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { afterCommitOf } from '../../db/commit-barrier.ts';
import type { MediaStorage } from '../../platform/storage/media-storage.ts';
import { exportContents } from './contents.ts';
import { exportBarrier, exportStorageKey, newExportToken } from './exports.ts';
import { zip } from './zip.ts';

/**
 * Builds the person's archive from one snapshot and stores it; false when the export is no longer
 * running. Its workflow starts inside the transaction that records the export: the barrier waits for that commit.
 */
export async function writeExportArchive(db: DatabasePool, storage: MediaStorage, exportId: string): Promise<boolean> {
  await afterCommitOf(db, exportBarrier(exportId));
  const archive = await db.transaction(async (tx) => {
    await tx.query(sql.typeAlias('void')`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY`);
    const userId = await tx.maybeOneFirst(sql.type(z.object({ user_id: z.string() }))`
      SELECT user_id FROM account_exports WHERE id = ${exportId} AND status = 'running'`);
    return userId ? zip(await exportContents(tx, userId)) : null;
  });
  if (!archive) return false;
  const key = exportStorageKey(exportId);
  await storage.write(key, archive, 'application/zip');
  await db.query(sql.typeAlias('void')`UPDATE account_exports SET storage_key = ${key}, size_bytes = ${archive.length} WHERE id = ${exportId}`);
  return true;
}

/**
 * Marks the export ready with a new link token, valid linkTtlMs from now; the raw token goes only
 * into the email, sent after this commits so the link works when it arrives. A retry (the email
 * failed) issues another token and the earlier link stops working. Null once downloaded or gone.
 */
export async function issueExportLink(db: DatabasePool, exportId: string, linkTtlMs: number) {
  const token = newExportToken();
  const issued = await db.maybeOne(sql.type(z.object({ email: z.string(), link_expires_at: z.string() }))`
    UPDATE account_exports e
    SET status = 'ready', completed_at = now(), token_hash = ${sql.binary(token.hash)},
        link_expires_at = now() + make_interval(secs => ${linkTtlMs / 1000})
    FROM users u WHERE e.id = ${exportId} AND e.status IN ('running', 'ready') AND e.downloaded_at IS NULL AND u.id = e.user_id
    RETURNING u.email, e.link_expires_at`);
  return issued ? { ...issued, token: token.raw } : null;
}

/** A failed export (its archive could not be built). */
export async function markExportFailed(db: DatabasePool, exportId: string): Promise<void> {
  await db.query(sql.typeAlias('void')`
    UPDATE account_exports SET status = 'failed', completed_at = now() WHERE id = ${exportId} AND status = 'running'`);
}

/** Removes the stored archive (its link has expired or it failed); removing it twice changes nothing. */
export async function removeExportArchive(db: DatabasePool, storage: MediaStorage, exportId: string): Promise<void> {
  await storage.remove(exportStorageKey(exportId));
  await db.query(sql.typeAlias('void')`UPDATE account_exports SET storage_key = NULL WHERE id = ${exportId}`);
}
