// Table-driven over every route the API reference lists with a permission: each key scope is
// allowed exactly what core/auth/scopes.ts says, and refused the rest with 403 insufficient_scope.
import { expect } from 'chai';
import { SCOPE_PERMISSIONS } from '../../core/auth/scopes.ts';
import { json } from '../support/http.ts';
import { bearer, createApiKey, createTestUser, login } from '../support/identity.ts';
import { startApi, type RunningApi } from '../support/processes.ts';

type Operation = { method: string; path: string; permission: string };

describe('API key scopes on every route', function () {
  this.timeout(120_000);
  let api: RunningApi;
  const keys: Record<string, string> = {};
  let operations: Operation[] = [];

  before(async () => {
    api = await startApi({ RALLY_RATE_LIMIT_RPS: '10000', RALLY_RATE_LIMIT_BURST: '10000' });
    const user = await createTestUser({ admin: false });
    const token = (await login(api.baseUrl, user)).accessToken;
    for (const scope of ['read', 'read_write', 'full'] as const) keys[scope] = (await createApiKey(api.baseUrl, token, scope)).key;
    const document = await json(await fetch(`${api.baseUrl}/openapi.json`));
    for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, { 'x-rally-permission'?: string }>>)) {
      for (const [method, operation] of Object.entries(methods)) {
        if (operation['x-rally-permission']) operations.push({ method: method.toUpperCase(), path, permission: operation['x-rally-permission'] });
      }
    }
  });
  after(() => api.stop());

  it('covers the routes that need a permission', () => {
    expect(operations.map((operation) => operation.permission)).to.include.members(['read', 'write', 'destroy']);
  });

  for (const scope of ['read', 'read_write', 'full'] as const) {
    it(`gives a "${scope}" key exactly ${SCOPE_PERMISSIONS[scope].join(', ')}`, async () => {
      for (const operation of operations) {
        // Placeholders: a fresh UUID for ids, a word for slugs. Validation and lookups run after the scope check.
        const path = operation.path.replace(/\{id\}/g, crypto.randomUUID()).replace(/\{[a-z_]+\}/g, 'someone');
        const response = await fetch(`${api.baseUrl}${path}`, {
          method: operation.method,
          headers: { 'content-type': 'application/json', ...bearer(keys[scope]!) },
          body: ['GET', 'DELETE'].includes(operation.method) ? undefined : '{}',
        });
        const body = response.status === 204 ? {} : await json(response);
        const allowed = (SCOPE_PERMISSIONS[scope] as readonly string[]).includes(operation.permission) && operation.permission !== 'admin';
        const label = `${scope} → ${operation.method} ${operation.path} (${operation.permission}): ${response.status} ${body.code ?? ''}`;
        if (allowed) expect(body.code, label).to.not.equal('insufficient_scope');
        else expect([response.status, body.code], label).to.deep.equal([403, operation.permission === 'admin' ? 'admin_required' : 'insufficient_scope']);
      }
    });
  }
});
