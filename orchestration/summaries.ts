// What an operator reads in Temporal's Web UI next to a workflow: a memo `summary` in plain words.
// Start sites that know the business facts write their own (core/workflow-summaries.ts); this
// interceptor gives every other start a summary from its type and id, so none goes without.
import type { Next, WorkflowClientInterceptor, WorkflowSignalWithStartInput, WorkflowStartInput, WorkflowStartUpdateWithStartInput } from '@temporalio/client';

function withSummary<T extends { memo?: Record<string, unknown>; workflowId: string }>(options: T, workflowType: string): T {
  if (typeof options.memo?.summary === 'string') return options;
  return { ...options, memo: { ...options.memo, summary: `${workflowType} ${options.workflowId}` } };
}

/** Adds `memo.summary` to every workflow a client starts without one. */
export class SummaryMemoInterceptor implements WorkflowClientInterceptor {
  start(input: WorkflowStartInput, next: Next<WorkflowClientInterceptor, 'start'>) {
    return next({ ...input, options: withSummary(input.options, input.workflowType) });
  }

  signalWithStart(input: WorkflowSignalWithStartInput, next: Next<WorkflowClientInterceptor, 'signalWithStart'>) {
    return next({ ...input, options: withSummary(input.options, input.workflowType) });
  }

  startUpdateWithStart(input: WorkflowStartUpdateWithStartInput, next: Next<WorkflowClientInterceptor, 'startUpdateWithStart'>) {
    return next({ ...input, workflowStartOptions: withSummary(input.workflowStartOptions, input.workflowType) });
  }
}
