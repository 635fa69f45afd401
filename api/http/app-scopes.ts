// OAuth app tokens reach a route only with the scope its declaration names (route.ts `scope`), and a handler can ask for one more where a query widens the
// answer (signers in an export, an avatar upload). The refusal is RFC 6750's: 403 with `WWW-Authenticate: Bearer error="insufficient_scope"` naming the scope
// that would do, so an app knows what to ask the user for.
import { appScopeCovers, NOT_FOR_APPS, type RouteScope } from '../../core/auth/scopes.ts';
import type { Principal } from './context.ts';
import { RallyError } from './problem.ts';

function insufficientScope(principal: Principal, needed: RouteScope | undefined): RallyError {
  const granted = (principal.oauthScopes ?? []).join(' ') || 'none';
  const appScope = needed !== undefined && needed !== NOT_FOR_APPS;
  const detail = appScope
    ? `This app's token has the scopes ${granted}; this needs "${needed}".`
    : 'OAuth apps cannot use this route, whatever their scopes: it needs the user’s own login or API key.';
  const challenge = appScope ? `Bearer error="insufficient_scope", scope="${needed}"` : 'Bearer error="insufficient_scope"';
  return new RallyError('forbidden', detail, { code: 'insufficient_scope', headers: { 'WWW-Authenticate': challenge } });
}

/** For OAuth app principals only; users and API keys pass (their own rules are the route's permission). */
export function requireAppScope(principal: Principal | undefined, needed: RouteScope | undefined): void {
  if (principal?.kind !== 'oauth_app') return;
  if (!appScopeCovers(principal.oauthScopes ?? [], needed)) throw insufficientScope(principal, needed);
}
