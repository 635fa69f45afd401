// The life of one decision maker's portal token (id `response-token-<token id>`): a durable timer until the deadline (RALLY_RESPONSE_TOKEN_TTL, 30 days by
// default), so restarts neither shorten nor lose it, then the token is marked expired and the portal answers 410. A response ends it early (`responded`
// signal); removing the decision maker cancels it (or, if it had not started yet, it ends at its start).
import { condition, defineSignal, patched, proxyActivities, setHandler } from '@temporalio/workflow';
import type { DecisionMakerActivities } from '../activities/decision-makers.ts';

const { sendResponseReminder, expireResponseToken, responseTokenExists, responseTokenState } = proxyActivities<DecisionMakerActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes' },
});

export const respondedSignal = defineSignal('responded');

export type ResponseTokenInput = { tokenId: string; petitionId: string; issuedAt: string; expiresAt: string };
export type ResponseTokenResult = { tokenId: string; outcome: 'responded' | 'expired' | 'removed'; reminded: boolean };

// One reminder, without the link (only its hash is kept), goes out when three quarters of the window have
// passed and no response has come: 7.5 days before the deadline with the default 30 days.
export const REMINDER_AT_FRACTION = 0.75;

export function responseTokenWorkflowId(tokenId: string): string {
  return `response-token-${tokenId}`;
}

export async function responseTokenExpiry({ tokenId, issuedAt, expiresAt }: ResponseTokenInput): Promise<ResponseTokenResult> {
  let responded = false;
  setHandler(respondedSignal, () => {
    responded = true;
  });
  // Added later: the invitation is emailed before this workflow starts, so a decision maker removed, or one who
  // answered, in between left a cancel or a `responded` signal with no workflow to reach; it then ends at once
  // instead of waiting 30 days. First for removals only; runs that took that path replay it.
  if (patched('end-when-answered-before-start')) {
    const state = await responseTokenState({ tokenId });
    if (state !== 'open') return { tokenId, outcome: state, reminded: false };
  } else if (patched('end-when-token-removed') && !(await responseTokenExists({ tokenId }))) {
    return { tokenId, outcome: 'removed', reminded: false };
  }
  const issued = Date.parse(issuedAt);
  const deadline = Date.parse(expiresAt);
  // Workflow time is replay-safe: Date.now() here is the time of the current workflow task.
  const waitUntil = (moment: number) => (moment > Date.now() ? condition(() => responded, moment - Date.now()) : Promise.resolve(responded));

  if (await waitUntil(issued + (deadline - issued) * REMINDER_AT_FRACTION)) return { tokenId, outcome: 'responded', reminded: false };
  const reminded = await sendResponseReminder({ tokenId });
  if (await waitUntil(deadline)) return { tokenId, outcome: 'responded', reminded };
  // False when a response committed just before the deadline but its signal had not arrived.
  const expired = await expireResponseToken({ tokenId });
  return { tokenId, outcome: expired ? 'expired' : 'responded', reminded };
}
