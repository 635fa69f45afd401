// What each API key scope may do, in one table (also printed in the API reference). A key never
// exceeds its owner: `admin` additionally needs the owner to be an administrator.
import type { Permission, Principal } from './principal.ts';
import { Forbidden } from '../errors/domain-error.ts';

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
