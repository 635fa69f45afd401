// The consent screen, on oidc-provider's interactions: the provider's redirect to /oauth/interaction/:uid is turned into the screen in the same answer, as the
// spec answers GET /oauth/authorize with the screen itself. The provider's interaction cookie (HttpOnly, SameSite=Lax) binds the screen to this browser.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { KoaContextWithOIDC, Provider } from 'oidc-provider';
import type { DatabasePool } from 'slonik';
import { OAUTH_SCOPE_CATALOG } from '../../../core/auth/scopes.ts';
import { findAppOwner } from '../../../core/oauth/app-identity.ts';
import { recordConsent } from '../../../core/oauth/user-authorizations.ts';
import type { OAuthScope } from '../../../core/vocabulary.ts';
import { grantScopes } from './grant-scopes.ts';
import { sendConsentPage, sendErrorPage } from './pages.ts';

const INTERACTION_PATH = /^\/oauth\/interaction\/([A-Za-z0-9_-]+)$/;
export const AUTHORIZATION_ROUTES = new Set(['authorization', 'resume']);

const requestedScopes = (scope: unknown) => [
  ...new Set(
    String(scope ?? '')
      .split(' ')
      .filter(Boolean),
  ),
];

export function answerConsentInteractions(options: { audience: string; db: DatabasePool }) {
  return async function answerConsentInteractions(ctx: KoaContextWithOIDC, next: () => Promise<void>) {
    await next();
    const uid = ctx.status === 303 && ctx.method === 'GET' ? INTERACTION_PATH.exec(ctx.response.get('Location'))?.[1] : undefined;
    if (!uid || !AUTHORIZATION_ROUTES.has(ctx.oidc?.route ?? '')) return;
    const interaction = await ctx.oidc.provider.Interaction.find(uid);
    const client = ctx.oidc.client;
    const owner = client && (await findAppOwner(options.db, client.clientId));
    ctx.remove('Location');
    // Rally vouches for the user before the provider runs (acting-user.ts), so only consent is ever asked.
    if (!interaction || interaction.prompt.name !== 'consent' || !client || !owner) {
      return sendErrorPage(ctx, 'This authorization request could not be completed. Start again from the app.');
    }
    const missing = interaction.prompt.details.missingResourceScopes as Record<string, string[]> | undefined;
    const scopes = missing?.[options.audience] ?? requestedScopes(interaction.params.scope);
    sendConsentPage(ctx, {
      appName: client.clientName ?? client.clientId,
      owner,
      scopeDescriptions: scopes.map((scope) => OAUTH_SCOPE_CATALOG[scope as OAuthScope]?.description ?? scope),
      action: `/oauth/interaction/${uid}`,
      redirectOrigin: new URL(String(interaction.params.redirect_uri)).origin,
    });
  };
}

export type ConsentDecision = 'approve' | 'deny';

/**
 * `decided`: on to the app. `unknown`: this browser holds no such screen (another browser's form, an
 * expired or used one). `not_yours`: the screen was shown to another account than the decider.
 */
export type ConsentOutcome = 'decided' | 'unknown' | 'not_yours';

/**
 * The consent form's answer by `decider` (the user the route found, if any): the provider resumes the
 * authorization request with a grant of the scopes asked for, recorded so a repeat request skips the
 * screen, or with access_denied. Only the account the screen was shown to decides, deny included.
 * The form's answer (POST /oauth/interaction/:uid) counts only from the browser that was shown it (login CSRF,
 * RFC 9700 4.4.1.8), from Rally's own page (the route checks Origin), and from the account it was shown to, as
 * that route proves it: a Bearer or the browser's Rally login.
 */
export async function decideConsent(
  deps: { provider: Provider; db: DatabasePool; audience: string },
  http: { req: IncomingMessage; res: ServerResponse },
  answer: { uid: string; decision: ConsentDecision; decider: string | undefined },
): Promise<ConsentOutcome> {
  const { provider } = deps;
  const details = await provider.interactionDetails(http.req, http.res).catch(() => undefined);
  const accountId = details?.session?.accountId;
  const clientId = details?.params.client_id;
  if (!details || details.uid !== answer.uid || details.prompt.name !== 'consent' || !accountId || typeof clientId !== 'string') return 'unknown';
  if (answer.decider !== accountId) return 'not_yours';
  if (answer.decision === 'deny') {
    await provider.interactionFinished(http.req, http.res, { error: 'access_denied', error_description: 'The user denied the request.' });
    return 'decided';
  }
  const missing = details.prompt.details.missingResourceScopes as Record<string, string[]> | undefined;
  const scopes = missing?.[deps.audience] ?? requestedScopes(details.params.scope);
  const grant = details.grantId ? await provider.Grant.find(details.grantId) : new provider.Grant({ accountId, clientId });
  if (!grant) return 'unknown';
  grantScopes(grant, deps.audience, scopes);
  const grantId = await grant.save();
  await recordConsent(deps.db, { userId: accountId, clientId, scopes });
  await provider.interactionFinished(http.req, http.res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  return 'decided';
}
