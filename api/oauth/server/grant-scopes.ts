// Rally's scopes are the provider's scopes (it validates requests against them) and the API's
// resource scopes (what its access tokens carry), so a grant records them as both; otherwise the
// provider would ask for consent to the one half again.
import type { Grant } from 'oidc-provider';

export function grantScopes(grant: Grant, audience: string, scopes: readonly string[]): void {
  const scope = scopes.join(' ');
  grant.addOIDCScope(scope);
  grant.addResourceScope(audience, scope);
}
