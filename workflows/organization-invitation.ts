// The life of one organization invitation (id `org-invite-<invitation id>`, search attribute RallyOrganizationId). It emails the single-use token, waits on a
// durable timer (so worker and server restarts neither shorten nor lose it), sends one reminder when three quarters of RALLY_INVITATION_TTL have passed, and at
// the deadline marks the invitation expired. Accepting it ends the workflow early (the `invitationAccepted` signal).
import { condition, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';
import type { InvitationActivities } from '../activities/organization-invitations.ts';

const { sendOrganizationInvitation, sendInvitationReminder, expireOrganizationInvitation } = proxyActivities<InvitationActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes' },
});

export const invitationAcceptedSignal = defineSignal('invitationAccepted');

export type OrganizationInvitationInput = { invitationId: string; organizationId: string; issuedAt: string; expiresAt: string };
export type OrganizationInvitationResult = { invitationId: string; outcome: 'accepted' | 'expired' | 'gone'; reminded: boolean };

export const INVITATION_REMINDER_AT_FRACTION = 0.75;

export function organizationInvitationWorkflowId(invitationId: string): string {
  return `org-invite-${invitationId}`;
}

export async function organizationInvitation({ invitationId, issuedAt, expiresAt }: OrganizationInvitationInput): Promise<OrganizationInvitationResult> {
  let accepted = false;
  setHandler(invitationAcceptedSignal, () => {
    accepted = true;
  });
  const issued = Date.parse(issuedAt);
  const deadline = Date.parse(expiresAt);
  // Workflow time is replay-safe: Date.now() here is the time of the current workflow task.
  const waitUntil = (moment: number) => (moment > Date.now() ? condition(() => accepted, moment - Date.now()) : Promise.resolve(accepted));

  // False when the invitation is gone (its organization was deleted) or was already accepted.
  if (!(await sendOrganizationInvitation({ invitationId }))) return { invitationId, outcome: 'gone', reminded: false };
  if (await waitUntil(issued + (deadline - issued) * INVITATION_REMINDER_AT_FRACTION)) return { invitationId, outcome: 'accepted', reminded: false };
  const reminded = await sendInvitationReminder({ invitationId });
  if (await waitUntil(deadline)) return { invitationId, outcome: 'accepted', reminded };
  // False when an acceptance committed just before the deadline but its signal had not arrived.
  const expired = await expireOrganizationInvitation({ invitationId });
  return { invitationId, outcome: expired ? 'expired' : 'accepted', reminded };
}
