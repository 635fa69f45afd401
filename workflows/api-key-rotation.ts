// The grace window of a rotated API key. Rotating issues a new key and starts this workflow for the old one (id `key-rotation-<old key id>`): it waits
// RALLY_KEY_GRACE_PERIOD on a durable server-side timer, so worker and server restarts do not shorten or lose it, then revokes the old key for good. Deleting
// the old key first cancels the workflow (it shows as Canceled in the Web UI).
import { defineQuery, proxyActivities, setHandler, sleep, workflowInfo } from '@temporalio/workflow';
import type { ApiKeyActivities } from '../activities/api-keys.ts';

const { revokeRotatedApiKey } = proxyActivities<ApiKeyActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes' },
});

export type ApiKeyRotationInput = { keyId: string; gracePeriodMs: number };
export type ApiKeyRotationStatus = { keyId: string; graceEndsAt: string; revoked: boolean };

export const rotationStatusQuery = defineQuery<ApiKeyRotationStatus>('rotationStatus');

export function apiKeyRotationWorkflowId(keyId: string): string {
  return `key-rotation-${keyId}`;
}

export async function apiKeyRotation({ keyId, gracePeriodMs }: ApiKeyRotationInput): Promise<ApiKeyRotationStatus> {
  const graceEndsAt = new Date(workflowInfo().startTime.getTime() + gracePeriodMs).toISOString();
  const status: ApiKeyRotationStatus = { keyId, graceEndsAt, revoked: false };
  setHandler(rotationStatusQuery, () => status);
  await sleep(gracePeriodMs);
  await revokeRotatedApiKey({ keyId });
  status.revoked = true;
  return status;
}
