// Rotates the keys that sign app access tokens and (issue 42) the embedded identity provider's, hourly
// from the Schedule `rotate-oauth-signing-keys` (orchestration/schedules.ts). Each activity decides whether a
// key is due (core/auth/signing-key-rotation.ts) and drops keys whose tokens have expired; repeatable.
import { log, patched, proxyActivities } from '@temporalio/workflow';
import type { OAuthActivities } from '../activities/oauth.ts';

const { rotateOAuthSigningKeyIfDue, rotateIdentitySigningKeyIfDue } = proxyActivities<OAuthActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '5 seconds', maximumAttempts: 5 },
});

type Outcome = { created: string | null; dropped: number };

export async function rotateOAuthSigningKeys(): Promise<Outcome & { identity?: Outcome }> {
  const outcome = await rotateOAuthSigningKeyIfDue();
  if (outcome.created) log.info('OAuth signing key made, published before it signs', { kid: outcome.created, dropped: outcome.dropped });
  // Added after the first release: `patched` keeps runs recorded before it replayable.
  if (!patched('rotate-identity-signing-keys')) return outcome;
  const identity = await rotateIdentitySigningKeyIfDue();
  if (identity.created) log.info('identity provider signing key made, published before it signs', { kid: identity.created, dropped: identity.dropped });
  return { ...outcome, identity };
}
