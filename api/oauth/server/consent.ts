// The consent screen, on oidc-provider's interactions. When the provider needs the user's consent
// it redirects to /oauth/interaction/:uid; the spec answers GET /oauth/authorize with the consent
// screen itself, so that redirect is turned into the screen, in the same answer. The provider's
// interaction cookie (HttpOnly, SameSite=Lax, set on that answer) binds the screen to this browser:
// the form's answer (POST /oauth/interaction/:uid) counts only from the browser that was shown it,
// which is what stops login CSRF (RFC 9700 4.4.1.8) and a form forged on another site.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { KoaContextWithOIDC, Provider } from 'oidc-provider';
import type { DatabasePool } from 'slonik';
import { OAUTH_SCOPE_CATALOG } from '../../../core/auth/scopes.ts';
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

export function answerConsentInteractions(options: { audience: string }) {
  return async function answerConsentInteractions(ctx: KoaContextWithOIDC, next: () => Promise<void>) {
    await next();
    const uid = ctx.status === 303 && ctx.method === 'GET' ? INTERACTION_PATH.exec(ctx.response.get('Location'))?.[1] : undefined;
    if (!uid || !AUTHORIZATION_ROUTES.has(ctx.oidc?.route ?? '')) return;
    const interaction = await ctx.oidc.provider.Interaction.find(uid);
    const client = ctx.oidc.client;
    ctx.remove('Location');
    // Rally vouches for the user before the provider runs (acting-user.ts), so only consent is ever asked.
    if (!interaction || interaction.prompt.name !== 'consent' || !client) {
      return sendErrorPage(ctx, 'This authorization request could not be completed. Start again from the app.');
    }
    const missing = interaction.prompt.details.missingResourceScopes as Record<string, string[]> | undefined;
    const scopes = missing?.[options.audience] ?? requestedScopes(interaction.params.scope);
    sendConsentPage(ctx, {
      appName: client.clientName ?? client.clientId,
      scopeDescriptions: scopes.map((scope) => OAUTH_SCOPE_CATALOG[scope as OAuthScope]?.description ?? scope),
      action: `/oauth/interaction/${uid}`,
      redirectOrigin: new URL(String(interaction.params.redirect_uri)).origin,
    });
  };
}

export type ConsentDecision = 'approve' | 'deny';

/**
 * The consent form's answer: the provider resumes the authorization request with a grant of the
 * scopes asked for, recorded so a repeat request skips the screen, or with access_denied. False
 * when this browser holds no such screen (another browser's form, an expired or used one).
 */
export async function decideConsent(
  deps: { provider: Provider; db: DatabasePool; audience: string },
  http: { req: IncomingMessage; res: ServerResponse },
  uid: string,
  decision: ConsentDecision,
): Promise<boolean> {
  const { provider } = deps;
  const details = await provider.interactionDetails(http.req, http.res).catch(() => undefined);
  const accountId = details?.session?.accountId;
  const clientId = details?.params.client_id;
  if (!details || details.uid !== uid || details.prompt.name !== 'consent' || !accountId || typeof clientId !== 'string') return false;
  if (decision === 'deny') {
    await provider.interactionFinished(http.req, http.res, { error: 'access_denied', error_description: 'The user denied the request.' });
    return true;
  }
  const missing = details.prompt.details.missingResourceScopes as Record<string, string[]> | undefined;
  const scopes = missing?.[deps.audience] ?? requestedScopes(details.params.scope);
  const grant = details.grantId ? await provider.Grant.find(details.grantId) : new provider.Grant({ accountId, clientId });
  if (!grant) return false;
  grantScopes(grant, deps.audience, scopes);
  const grantId = await grant.save();
  await recordConsent(deps.db, { userId: accountId, clientId, scopes });
  await provider.interactionFinished(http.req, http.res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  return true;
}
