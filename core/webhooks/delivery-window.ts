// How many first attempts may be in flight to one endpoint at once (its delivery window), adapted
// after every batch the way TCP adapts its congestion window: one more for each answer that came back
// fast, half as many after a batch with a failure (an error status, a timeout, a refused connection).
// A healthy endpoint thus climbs quickly to the ceiling (RALLY_WEBHOOK_ENDPOINT_CONCURRENCY) and an
// unhealthy one is soon sent one delivery at a time; a slow but successful one keeps its window.
// The dispatcher claims at most `window` waiting deliveries of an endpoint whose first attempts are
// not finished yet, and a batch sends its deliveries at once.

/** An answer within this is "fast": the receiver is keeping up. */
export const FAST_ANSWER_MS = 500;

/** What a new endpoint starts with. Keep equal to the column default of webhook_endpoints.delivery_window. */
export const INITIAL_WINDOW = 8;

export type AnswerSummary = { ok: boolean; latencyMs: number };

export function nextDeliveryWindow(current: number, answers: readonly AnswerSummary[], ceiling: number): number {
  if (answers.some((answer) => !answer.ok)) return Math.max(1, Math.floor(current / 2));
  const fast = answers.filter((answer) => answer.latencyMs <= FAST_ANSWER_MS).length;
  return Math.max(1, Math.min(ceiling, current + fast));
}
