// Invites a petition's decision makers to its response portal: started by the lifecycle workflow after publish (id `decision-maker-invitations-<petition id>`,
// every decision maker not yet invited) and by the API when one is added to an active petition (`decisionMakerIds`). A decision maker whose email cannot be
// sent after retries is marked failed.
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { ActivityFailure, ApplicationFailure, ParentClosePolicy, proxyActivities, startChild } from '@temporalio/workflow';
import type { DecisionMakerActivities } from '../activities/decision-makers.ts';
import { RallyEntityType, RallyPetitionId } from './search-attributes.ts';
import { responseTokenExpiry, responseTokenWorkflowId } from './response-token.ts';

const { listUninvitedDecisionMakers, markInvitationFailed } = proxyActivities<DecisionMakerActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '2 seconds', maximumInterval: '1 minute' },
});

// A mail server that is down for a while is waited out; one that refuses the address is not.
const { sendPortalInvitation } = proxyActivities<DecisionMakerActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 8 },
});

export type InviteDecisionMakersInput = { petitionId: string; decisionMakerIds?: string[] };
export type InviteDecisionMakersResult = { petitionId: string; sent: number; failed: number; skipped: number };

export function decisionMakerInvitationWorkflowId(decisionMakerId: string): string {
  return `decision-maker-invitation-${decisionMakerId}`;
}

// Each invitation issues a token and emails it in one activity, so the raw token never enters workflow history;
// then each token's expiry runs as its own abandoned child workflow, which outlives this one.
async function invite(petitionId: string, decisionMakerId: string): Promise<'sent' | 'failed' | 'skipped'> {
  let token;
  try {
    token = await sendPortalInvitation({ decisionMakerId });
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    const reason = error.cause instanceof ApplicationFailure ? error.cause.message : 'The invitation could not be sent.';
    await markInvitationFailed({ decisionMakerId, reason });
    return 'failed';
  }
  // Removed from the petition meanwhile: nothing to send, nothing to expire.
  if (!token) return 'skipped';
  try {
    await startChild(responseTokenExpiry, {
      workflowId: responseTokenWorkflowId(token.tokenId),
      args: [{ tokenId: token.tokenId, petitionId, issuedAt: token.issuedAt, expiresAt: token.expiresAt }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      memo: { summary: `Decision-maker response link of petition ${petitionId}, valid until ${token.expiresAt}` },
      typedSearchAttributes: [
        { key: RallyPetitionId, value: petitionId },
        { key: RallyEntityType, value: 'response_token' },
      ],
    });
  } catch (error) {
    // An earlier invitation run already started this token's expiry: that one stands.
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
  return 'sent';
}

export async function inviteDecisionMakers({ petitionId, decisionMakerIds }: InviteDecisionMakersInput): Promise<InviteDecisionMakersResult> {
  const pending = await listUninvitedDecisionMakers({ petitionId, decisionMakerIds });
  const outcomes = await Promise.all(pending.map((decisionMakerId) => invite(petitionId, decisionMakerId)));
  const count = (outcome: string) => outcomes.filter((each) => each === outcome).length;
  return { petitionId, sent: count('sent'), failed: count('failed'), skipped: count('skipped') };
}
