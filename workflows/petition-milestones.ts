// Milestone crossings as signals to the petition's lifecycle workflow: how crossings were announced until the dispatcher began announcing them in rounds
// (core/organizations/milestone-notifications.ts). Nothing sends the signal any more; the handler stays, each step behind its patch, so that workflows
// already holding one and the recorded histories replay as they ran.
import { defineSignal, patched, proxyActivities, proxyLocalActivities, setHandler, startChild, type ParentClosePolicy } from '@temporalio/workflow';
import type { NotificationActivities } from '../activities/notifications.ts';
import { notifyPetitionSigners } from './signer-notifications.ts';

const activityOptions = {
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute' },
} as const;
const { notifyMilestoneAdmins, petitionHasMilestoneSubscribers } = proxyActivities<NotificationActivities>(activityOptions);
const { announceMilestone } = proxyLocalActivities<NotificationActivities>(activityOptions);

// Behind patched(): histories recorded before this change never carry the signal and replay as before.
export const MILESTONE_NOTIFICATIONS_PATCH = 'milestone-notifications';
// A crossing no signer opted in to hear about (most of them) starts no fan-out workflow: a spike spread over
// thousands of petitions crosses thousands of milestones.
export const SKIP_UNHEARD_PATCH = 'milestone-skip-unheard-fan-out';
// Both steps of a crossing run as one local activity: two activity tasks cost the Temporal server two
// schedule/start/complete round trips and the workflow two more tasks per crossing, and a spread spike's
// crossings kept the server busy into the rows that followed.
export const ONE_LOCAL_ACTIVITY_PATCH = 'milestone-one-local-activity';

/** Tells the admins; answers whether a signer fan-out is wanted. Histories of each patch replay their own steps. */
async function announce(petitionId: string, threshold: number): Promise<boolean> {
  if (patched(ONE_LOCAL_ACTIVITY_PATCH)) return (await announceMilestone({ petitionId, threshold })).signersListening;
  await notifyMilestoneAdmins({ petitionId, threshold });
  return !patched(SKIP_UNHEARD_PATCH) || (await petitionHasMilestoneSubscribers({ petitionId }));
}

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
    if (!(await announce(petitionId, threshold))) return;
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
