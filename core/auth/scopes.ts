// What each scope may do, in one table for API keys and OAuth apps (also printed in the API
// reference). An API key scope covers the whole API; an OAuth scope grants the same permissions
// within one area. Neither ever exceeds its owner: `admin` additionally needs the owner to be an
// administrator, and no OAuth scope grants it.
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

/** The parts of the API an OAuth scope can reach; every other route is closed to OAuth apps. */
export type ScopeArea = 'petitions' | 'signatures' | 'profile';

const APP_WRITE: readonly Permission[] = ['read', 'write', 'destroy'];

export const OAUTH_SCOPE_PERMISSIONS: Record<OAuthScope, { area: ScopeArea; permissions: readonly Permission[]; description: string }> = {
  'read:petitions': {
    area: 'petitions',
    permissions: SCOPE_PERMISSIONS.read,
    description: 'See petitions, their comments, updates and responses, including your private ones',
  },
  'write:petitions': { area: 'petitions', permissions: APP_WRITE, description: 'Start, edit, publish, close and delete petitions and comments as you' },
  'read:signatures': { area: 'signatures', permissions: SCOPE_PERMISSIONS.read, description: 'See who signed petitions you can see' },
  'write:signatures': { area: 'signatures', permissions: APP_WRITE, description: 'Sign and unsign petitions as you' },
  'read:profile': { area: 'profile', permissions: SCOPE_PERMISSIONS.read, description: 'See your profile, e-mail address and notifications' },
  'write:profile': { area: 'profile', permissions: APP_WRITE, description: 'Change your profile and notification settings' },
};

// Route path prefixes → area, most specific first (signatures live under petitions).
const AREA_OF_PATH: ReadonlyArray<[prefix: string, area: ScopeArea]> = [
  ['/v1/petitions/:id/signatures', 'signatures'],
  ['/v1/petitions', 'petitions'],
  ['/v1/comments', 'petitions'],
  ['/v1/media', 'petitions'],
  ['/v1/users/me', 'profile'],
  ['/v1/me', 'profile'],
  ['/v1/notifications', 'profile'],
];

export function scopeAreaOf(routePath: string): ScopeArea | undefined {
  return AREA_OF_PATH.find(([prefix]) => routePath === prefix || routePath.startsWith(`${prefix}/`))?.[1];
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

/** An OAuth app reaches a route only when one of its token's scopes covers the route's area and permission. */
export function assertAppPermitted(principal: Principal, route: { path: string; permission?: Permission }): void {
  const area = scopeAreaOf(route.path);
  const permission = route.permission;
  const covered =
    area !== undefined &&
    permission !== undefined &&
    (principal.oauthScopes ?? []).some((scope) => {
      const grant = OAUTH_SCOPE_PERMISSIONS[scope as OAuthScope];
      return grant?.area === area && grant.permissions.includes(permission);
    });
  if (!covered) {
    const needed = area && permission ? `a scope allowing "${permission}" on ${area}` : 'a user login (OAuth apps cannot use it)';
    throw new Forbidden(`This token's scopes (${(principal.oauthScopes ?? []).join(' ') || 'none'}) do not cover this route; it needs ${needed}.`, {
      code: 'insufficient_scope',
    });
  }
}
