// What an operator reads in Temporal's Web UI next to a workflow: a memo `summary` in plain words.
// Start sites that know the business facts (a petition's title, an endpoint's host) write their own;
// the interceptor gives every other start a summary from its type and id, so none goes without.
import type { Next, WorkflowClientInterceptor, WorkflowSignalWithStartInput, WorkflowStartInput, WorkflowStartUpdateWithStartInput } from '@temporalio/client';

const MAX_TITLE = 80;

function shortTitle(title: string): string {
  return title.length > MAX_TITLE ? `${title.slice(0, MAX_TITLE - 1)}…` : title;
}

/** Only the host of a webhook URL: its path and query may carry the receiver's own secrets. */
export function endpointHost(url: string): string {
  return URL.parse(url)?.host ?? 'an invalid URL';
}

export function deliverySummary(delivery: { event_type: string; endpoint_url: string; petition_title: string | null }): string {
  const about = delivery.petition_title ? ` for "${shortTitle(delivery.petition_title)}"` : '';
  return `Webhook ${delivery.event_type}${about} to ${endpointHost(delivery.endpoint_url)}`;
}

/** A batch of first attempts (workflows/webhook-delivery-batch.ts): its size, and what its first delivery carries. */
export function deliveryBatchSummary(batch: {
  delivery_ids: readonly string[];
  event_type: string;
  endpoint_url: string;
  petition_title: string | null;
}): string {
  if (batch.delivery_ids.length === 1) return deliverySummary(batch);
  const about = batch.petition_title ? ` for "${shortTitle(batch.petition_title)}"` : '';
  return `${batch.delivery_ids.length} webhooks (first: ${batch.event_type})${about} to ${endpointHost(batch.endpoint_url)}`;
}

export function petitionSummary(title: string): string {
  return `Petition "${shortTitle(title)}"`;
}

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
