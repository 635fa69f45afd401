// Rotates the keys that sign OAuth app access tokens (core/oauth/signing-key-rotation.ts): started by
// the Temporal Schedule `rotate-oauth-signing-keys` (worker/schedules.ts) every hour. The activity
// decides whether a key is due and drops keys whose tokens have all expired; repeating it is harmless.
import { log, proxyActivities } from '@temporalio/workflow';
import type { OAuthActivities } from '../activities/oauth.ts';

const { rotateOAuthSigningKeyIfDue } = proxyActivities<OAuthActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '5 seconds', maximumAttempts: 5 },
});

export async function rotateOAuthSigningKeys(): Promise<{ created: string | null; dropped: number }> {
  const outcome = await rotateOAuthSigningKeyIfDue();
  if (outcome.created) log.info('OAuth signing key made, published before it signs', { kid: outcome.created, dropped: outcome.dropped });
  return outcome;
}
