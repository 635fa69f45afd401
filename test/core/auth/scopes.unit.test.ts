import { expect } from 'chai';
import type { Permission, Principal } from '../../../core/auth/principal.ts';
import { assertPermitted } from '../../../core/auth/scopes.ts';
import { DomainError } from '../../../core/errors/domain-error.ts';

// The scope table of the API reference: what each API key scope may do.
const EXPECTED: Record<Principal['scope'], Record<Permission, boolean>> = {
  read: { read: true, write: false, destroy: false, admin: false },
  read_write: { read: true, write: true, destroy: false, admin: false },
  full: { read: true, write: true, destroy: true, admin: true },
};

const principal = (scope: Principal['scope'], role: Principal['role']): Principal => ({ kind: 'api_key', userId: 'u', role, scope, apiKeyId: 'k' });

describe('API key scopes (core/auth/scopes.ts)', () => {
  for (const [scope, permissions] of Object.entries(EXPECTED) as [Principal['scope'], Record<Permission, boolean>][]) {
    for (const [permission, allowed] of Object.entries(permissions) as [Permission, boolean][]) {
      it(`${allowed ? 'lets' : 'does not let'} a ${scope} key of an administrator ${permission}`, () => {
        const check = () => assertPermitted(principal(scope, 'admin'), permission);
        if (allowed) expect(check).to.not.throw();
        else expect(check).to.throw(DomainError).with.property('code', 'insufficient_scope');
      });
    }
  }

  it('never lets a key exceed its owner: admin needs an administrator even with full scope', () => {
    expect(() => assertPermitted(principal('full', 'user'), 'admin'))
      .to.throw(DomainError)
      .with.property('code', 'admin_required');
  });

  it('refuses with a 403-kind error', () => {
    expect(() => assertPermitted(principal('read', 'user'), 'write'))
      .to.throw(DomainError)
      .with.property('kind', 'forbidden');
  });
});
