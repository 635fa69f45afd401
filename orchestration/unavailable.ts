// The one answer for "Temporal cannot be reached": a 503 the client may retry. Every start, signal
// and update a request depends on passes its failure through here; `consequence` tells the client
// what did not happen (e.g. 'nothing was changed'), so it knows a retry is safe.
import { Unavailable } from '../core/errors/domain-error.ts';

export function workflowServiceUnavailable(cause: unknown, consequence?: string): Unavailable {
  return new Unavailable(`The workflow service cannot be reached right now${consequence ? `; ${consequence}` : ''}. Retry shortly.`, { cause });
}

/** Awaits a call to Temporal; a failure to reach it becomes the 503 above. */
export async function orUnavailable<T>(call: Promise<T>, consequence?: string): Promise<T> {
  try {
    return await call;
  } catch (error) {
    throw workflowServiceUnavailable(error, consequence);
  }
}

/** For signals and cancels that are best effort by design: the workflow copes when one is lost. */
export async function bestEffort(call: Promise<unknown>): Promise<void> {
  await call.catch(() => undefined);
}
