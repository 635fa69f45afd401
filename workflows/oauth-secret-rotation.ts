// The grace window of a rotated OAuth app secret. Rotating (core/oauth/developer-apps.ts) starts this workflow (id `oauth-secret-rotation-<client id>-<rotation
// time ms>`): it waits RALLY_KEY_GRACE_PERIOD on a durable server-side timer, then erases the old secret's hash. The old secret already stops working at its
// stored expiry; the wait runs a little past it so the erase never cuts the window short.
import { proxyActivities, sleep } from '@temporalio/workflow';
import type { OAuthActivities } from '../activities/oauth.ts';

const { endClientSecretGrace } = proxyActivities<OAuthActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes' },
});

/** Past the stored expiry, so the database clock has reached it too. */
const CLOCK_MARGIN_MS = 5_000;

export type OAuthSecretRotationInput = { clientId: string; gracePeriodMs: number };

export function oauthSecretRotationWorkflowId(clientId: string, rotatedAtMs: number): string {
  return `oauth-secret-rotation-${clientId}-${rotatedAtMs}`;
}

export async function oauthSecretRotation({ clientId, gracePeriodMs }: OAuthSecretRotationInput): Promise<boolean> {
  await sleep(gracePeriodMs + CLOCK_MARGIN_MS);
  return endClientSecretGrace({ clientId });
}
