// Notification fan-out for workflows: one keyset batch of a petition's signers per activity run.
import type { DatabasePool } from 'slonik';
import { hasMilestoneSubscribers, notifySignersBatch, type SignerBatch, type SignerBatchInput } from '../core/notifications/create.ts';
import { notifyOrganizationAdminsOfMilestone } from '../core/organizations/milestone-notifications.ts';

export function createNotificationActivities({ db }: { db: DatabasePool }) {
  return {
    /** Safe to repeat: notifications_dedupe_unique drops anyone already told under this dedupeKey. */
    async notifySignerBatch(input: SignerBatchInput): Promise<SignerBatch> {
      return notifySignersBatch(db, input);
    },

    /** Whether a milestone of the petition has signers to tell (read-only). */
    async petitionHasMilestoneSubscribers({ petitionId }: { petitionId: string }): Promise<boolean> {
      return hasMilestoneSubscribers(db, petitionId);
    },

    /** The owner and admins of the petition's organization, at once; safe to repeat (dedupe key). */
    async notifyMilestoneAdmins({ petitionId, threshold }: { petitionId: string; threshold: number }): Promise<number> {
      return notifyOrganizationAdminsOfMilestone(db, petitionId, threshold);
    },

    /**
     * Both of a crossing's steps in one local activity (workflows/petition-milestones.ts): tells the
     * admins, then answers whether any signer listens for milestones. Safe to repeat, as each step is.
     */
    async announceMilestone({ petitionId, threshold }: { petitionId: string; threshold: number }): Promise<{ signersListening: boolean }> {
      await notifyOrganizationAdminsOfMilestone(db, petitionId, threshold);
      return { signersListening: await hasMilestoneSubscribers(db, petitionId) };
    },
  };
}

export type NotificationActivities = ReturnType<typeof createNotificationActivities>;
