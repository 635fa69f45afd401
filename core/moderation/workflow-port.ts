// What moderation asks of the moderation workflow (one per reported target; the Temporal side is orchestration/moderation.ts): each new report is signalled to
// it, and each reviewer's decision is applied through it, so a target's reports, its hiding and its decisions form one inspectable history per round of
// reports. Both start a new run when none is running.
import type { DecisionOutcome, ModerationDecision } from './actions.ts';
import type { ModerationTarget } from './reports.ts';

export type ModerationWorkflows = {
  reportFiled(target: ModerationTarget, reportId: string): Promise<void>;
  /** The activity's refusals come back as domain errors. */
  decide(target: ModerationTarget, decision: ModerationDecision): Promise<DecisionOutcome>;
};

export type ModerationWorkflowDependencies = { workflows: ModerationWorkflows };
