// What the accountExport workflow does: build and store the archive, email the once-only link, and
// remove the archive when the link has expired. The raw link token exists only between its creation
// and the email (core/account-exports/delivery.ts stores its SHA-256).
import type { DatabasePool } from 'slonik';
import { issueExportLink, markExportFailed, removeExportArchive, writeExportArchive } from '../core/account-exports/delivery.ts';
import { exportDownloadUrl } from '../core/account-exports/exports.ts';
import type { Config } from '../platform/config.ts';
import { createMailer, type Mailer } from '../platform/mailer.ts';
import { createMediaStorage } from '../platform/storage/create-media-storage.ts';
import type { MediaStorage } from '../platform/storage/media-storage.ts';
import { withHeartbeat } from './heartbeat.ts';

export type AccountExportActivityDependencies = { db: DatabasePool; storage: MediaStorage; mailer: Mailer; publicUrl: string };

export function createAccountExportActivities({ db, storage, mailer, publicUrl }: AccountExportActivityDependencies) {
  return {
    /** False when the export is no longer running (a repeated workflow task after it finished). */
    writeAccountExport: ({ exportId }: { exportId: string }): Promise<boolean> => withHeartbeat(() => writeExportArchive(db, storage, exportId)),

    /** Marks the export ready with a new link and emails it; a retry mails another link. */
    async mailAccountExportLink({ exportId, linkTtlMs }: { exportId: string; linkTtlMs: number }): Promise<boolean> {
      const issued = await issueExportLink(db, exportId, linkTtlMs);
      if (!issued) return false;
      await mailer.send({
        to: issued.email,
        subject: 'Your Rally data export is ready',
        text: [
          'The archive of your data on Rally that you asked for is ready. Download it here:',
          exportDownloadUrl(publicUrl, exportId, issued.token),
          '',
          `The link works once, until ${new Date(issued.link_expires_at).toUTCString()}. If you did not ask for it, change your password.`,
        ].join('\n'),
      });
      return true;
    },

    markAccountExportFailed: ({ exportId }: { exportId: string }): Promise<void> => markExportFailed(db, exportId),

    removeAccountExport: ({ exportId }: { exportId: string }): Promise<void> => removeExportArchive(db, storage, exportId),
  };
}

export type AccountExportActivities = ReturnType<typeof createAccountExportActivities>;

export function accountExportDependencies(db: DatabasePool, config: Config): AccountExportActivityDependencies {
  return { db, storage: createMediaStorage(config), mailer: createMailer(config.mail), publicUrl: config.publicUrl };
}
