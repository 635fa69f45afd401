// The reference for the webhook benchmark: the cheapest useful Temporal workflow, one activity that
// does nothing. Its rate is what this Temporal server and machine can do at all for that shape.
import { proxyActivities } from '@temporalio/workflow';

const { noop } = proxyActivities<{ noop(): Promise<void> }>({ startToCloseTimeout: '10 seconds' });

export async function benchNoopWorkflow(): Promise<void> {
  await noop();
}
