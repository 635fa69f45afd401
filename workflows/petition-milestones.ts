// Milestone crossings, owned by the petition's lifecycle workflow. The outbox dispatcher signals each
// crossing (signal-with-start, so a finished or missing workflow is started for it); the history
// holds crossings only, never single signatures. Per threshold, once: the organization's owner and
// admins are told at once (the creator already is, through the outbox), then the signers who opted
// in to petition.milestone, in keyset batches with continue-as-new (notifyPetitionSigners).
// Behind patched(): histories recorded before this change never carry the signal and replay as before.
// Since SKIP_UNHEARD_PATCH, a crossing no signer opted in to hear about (most of them) starts no
// fan-out workflow: a spike spread over thousands of petitions crosses thousands of milestones.
import { defineSignal, patched, proxyActivities, setHandler, startChild, type ParentClosePolicy } from '@temporalio/workflow';
import type { NotificationActivities } from '../activities/notifications.ts';
import { notifyPetitionSigners } from './signer-notifications.ts';

const { notifyMilestoneAdmins, petitionHasMilestoneSubscribers } = proxyActivities<NotificationActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

export const MILESTONE_NOTIFICATIONS_PATCH = 'milestone-notifications';
export const SKIP_UNHEARD_PATCH = 'milestone-skip-unheard-fan-out';

export type MilestoneCrossing = { threshold: number; title: string };
export const milestoneReachedSignal = defineSignal<[MilestoneCrossing]>('milestoneReached');

/** The options of an abandoned follow-up child, as the lifecycle workflow starts them. */
type FollowUpOptions = (
  workflowId: string,
  summary: string,
) => { workflowId: string; parentClosePolicy: ParentClosePolicy; taskQueue: string; memo: { summary: string } };

export function handleMilestoneCrossings(petitionId: string, followUp: FollowUpOptions): void {
  const handled = new Set<number>();
  setHandler(milestoneReachedSignal, async ({ threshold, title }) => {
    if (!patched(MILESTONE_NOTIFICATIONS_PATCH) || handled.has(threshold)) return;
    handled.add(threshold);
    await notifyMilestoneAdmins({ petitionId, threshold });
    if (patched(SKIP_UNHEARD_PATCH) && !(await petitionHasMilestoneSubscribers({ petitionId }))) return;
    await startChild(notifyPetitionSigners, {
      ...followUp(`signer-notifications-milestone-${petitionId}-${threshold}`, `Tell the signers of “${title}” it reached ${threshold} signatures`),
      args: [
        {
          petitionId,
          type: 'petition.milestone',
          optedInOnly: true,
          title: `“${title}” reached ${threshold.toLocaleString('en-US')} signatures`,
          body: 'A petition you signed keeps growing. Share it again!',
          data: { petition_id: petitionId, threshold },
          dedupeKey: `milestone:${petitionId}:${threshold}`,
        },
      ],
    });
  });
}
