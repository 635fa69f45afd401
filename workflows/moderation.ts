// One workflow per reported target (id `moderation-<type>-<id>`): it hears each new report (signal), hides the target pending review once
// RALLY_REPORT_AUTOHIDE_THRESHOLD distinct users reported it, and applies reviewers' decisions (update) one at a time. It ends when no open report is left, so
// each round of reports is one history; counting reads the database (the reports are the record), so a lost or repeated signal changes nothing.
import { FAILURE_TYPES } from '../core/vocabulary.ts';
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  defineSignal,
  defineUpdate,
  ParentClosePolicy,
  proxyActivities,
  setHandler,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { ModerationActivities } from '../activities/moderation.ts';
import { RallyModerationState, RallyUserId, RallyEntityType } from './search-attributes.ts';

const { hideIfReportedEnough, applyModerationDecision, countOpenReports } = proxyActivities<ModerationActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute', nonRetryableErrorTypes: [FAILURE_TYPES.moderationTargetGone] },
});

export type ModerationTargetRef = { type: 'petition' | 'comment' | 'user'; id: string };
export type ModerationInput = { target: ModerationTargetRef };
export type ModerationResult = { target: ModerationTargetRef; hidden: boolean; decisions: number };

type ModerationDecision = Parameters<ModerationActivities['applyModerationDecision']>[0];
type DecisionOutcome = Awaited<ReturnType<ModerationActivities['applyModerationDecision']>>;

export const reportedSignal = defineSignal<[{ reportId: string }]>('reported');
export const decideUpdate = defineUpdate<DecisionOutcome, [ModerationDecision]>('decide');

export const moderationWorkflowId = (target: ModerationTargetRef) => `moderation-${target.type}-${target.id}`;

// Far more than any real round of reports; keeps a history from growing without bound.
const MAX_ROUNDS_PER_RUN = 500;

export async function moderateTarget({ target }: ModerationInput): Promise<ModerationResult> {
  let pendingReports = 0;
  let busy = false;
  let hidden = false;
  let decisions = 0;
  let openReports = 1;
  let rounds = 0;
  const setState = (state: 'watching' | 'hidden' | 'decided') => upsertSearchAttributes([{ key: RallyModerationState, value: state }]);

  // One database change at a time, in arrival order: decisions never interleave with auto-hiding.
  const exclusive = async <T>(work: () => Promise<T>): Promise<T> => {
    await condition(() => !busy);
    busy = true;
    try {
      return await work();
    } finally {
      busy = false;
    }
  };

  setHandler(reportedSignal, () => {
    pendingReports += 1;
  });
  setHandler(decideUpdate, (decision) =>
    exclusive(async () => {
      const outcome = await applyModerationDecision(decision);
      decisions += 1;
      openReports = await countOpenReports({ target });
      setState('decided');
      if (outcome.warning) await startWarningEmail(outcome.warning);
      return outcome;
    }),
  );

  setState('watching');
  while (pendingReports > 0 || openReports > 0) {
    await condition(() => pendingReports > 0 || (openReports === 0 && !busy));
    if (pendingReports === 0) break;
    pendingReports = 0;
    rounds += 1;
    await exclusive(async () => {
      const outcome = await hideIfReportedEnough({ target });
      if (outcome.hidden) {
        hidden = true;
        setState('hidden');
      }
      openReports = outcome.reporters;
    });
    if (rounds >= MAX_ROUNDS_PER_RUN || workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      return continueAsNew<typeof moderateTarget>({ target });
    }
  }
  await condition(allHandlersFinished);
  return { target, hidden, decisions };
}

async function startWarningEmail(warning: { id: string; user_id: string }): Promise<void> {
  await startChild('deliverWarningEmail', {
    workflowId: `warning-email-${warning.id}`,
    args: [{ warningId: warning.id }],
    parentClosePolicy: ParentClosePolicy.ABANDON,
    taskQueue: workflowInfo().taskQueue,
    memo: { summary: `Warning email to user ${warning.user_id}` },
    typedSearchAttributes: [
      { key: RallyUserId, value: warning.user_id },
      { key: RallyEntityType, value: 'warning' },
    ],
  });
}
