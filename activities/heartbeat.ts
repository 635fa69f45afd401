// Heartbeating while a long step runs, so that a worker killed in the middle of it is noticed within
// the activity's heartbeat timeout instead of its (much longer) start-to-close timeout.
import { Context } from '@temporalio/activity';

/** Heartbeats every second while `work` runs. */
export async function withHeartbeat<T>(work: () => Promise<T>): Promise<T> {
  const context = Context.current();
  const timer = setInterval(() => context.heartbeat(), 1_000);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
