// What a workflow's refusal looked like, seen from a client: Temporal wraps the ApplicationFailure a
// workflow or its activity threw in update and activity failures; this finds it, so the caller can
// turn the failure type (core/vocabulary.ts FAILURE_TYPES) into a domain error.
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure } from '@temporalio/common';

export function applicationFailureOf(error: unknown): ApplicationFailure | undefined {
  let cause: unknown = error;
  while (cause instanceof Error) {
    if (cause instanceof ApplicationFailure) return cause;
    cause = cause instanceof WorkflowUpdateFailedError || cause instanceof ActivityFailure ? cause.cause : undefined;
  }
  return undefined;
}
