// What each scope may do, in one table for API keys and OAuth apps (also printed in the API reference). An API key scope covers the whole API; an OAuth scope
// grants the same permissions within one area. Neither ever exceeds its owner: `admin` additionally needs the owner to be an administrator, and no OAuth scope
// grants it.
import type { Permission, Principal } from './principal.ts';
import { Forbidden } from '../errors/domain-error.ts';
import type { OAuthScope } from '../vocabulary.ts';

export const SCOPE_PERMISSIONS: Record<Principal['scope'], readonly Permission[]> = {
  read: ['read'],
  read_write: ['read', 'write'],
  full: ['read', 'write', 'destroy', 'admin'],
};

export const SCOPE_DESCRIPTIONS: Record<Principal['scope'], string> = {
  read: 'may only read',
  read_write: 'may read, create and change; may not delete, revoke, rotate or act as admin',
  full: 'may do everything its owner may',
};

/**
 * What a route asks of an OAuth app token: one scope, or `not_for_apps` for routes an app never
 * reaches whatever it was granted (administration, organization management, API keys, webhooks,
 * the user's own app authorizations). Declared on every route an app token can reach (route.ts).
 */
export const NOT_FOR_APPS = 'not_for_apps';
export type RouteScope = OAuthScope | typeof NOT_FOR_APPS;

/**
 * The OAuth scopes, each with what the user is told on the consent screen and what the API
 * reference lists. A write scope implies its read scope except for signatures: signing as the user
 * never shows the app who else signed (signer names, emails and cities need read:signatures).
 */
export const OAUTH_SCOPE_CATALOG: Record<OAuthScope, { description: string; implies: readonly OAuthScope[] }> = {
  'read:petitions': { description: 'See petitions, their comments, updates and responses, including your private ones', implies: [] },
  'write:petitions': { description: 'Start, edit, publish, close and delete petitions and comments as you', implies: ['read:petitions'] },
  'read:signatures': { description: 'See who signed petitions you can see: names, e-mail addresses and cities (signature lists and exports)', implies: [] },
  'write:signatures': { description: 'Sign and unsign petitions as you', implies: [] },
  'read:profile': { description: 'See your profile, e-mail address and notifications', implies: [] },
  'write:profile': { description: 'Change your profile, avatar and notification settings', implies: ['read:profile'] },
};

/** Whether a token granted `granted` may use a route that needs `needed`. */
export function appScopeCovers(granted: readonly string[], needed: RouteScope | undefined): boolean {
  if (needed === undefined || needed === NOT_FOR_APPS) return false;
  return granted.some((scope) => scope === needed || (OAUTH_SCOPE_CATALOG[scope as OAuthScope]?.implies ?? []).includes(needed));
}

export function assertPermitted(principal: Principal, permission: Permission): void {
  // Not being an administrator is the more fundamental refusal, whatever the key's scope.
  if (permission === 'admin' && principal.role !== 'admin') {
    throw new Forbidden('This route is for administrators.', { code: 'admin_required' });
  }
  if (!SCOPE_PERMISSIONS[principal.scope].includes(permission)) {
    throw new Forbidden(`This API key's scope "${principal.scope}" ${SCOPE_DESCRIPTIONS[principal.scope]}; this route needs "${permission}".`, {
      code: 'insufficient_scope',
    });
  }
}
