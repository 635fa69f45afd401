// /v1/api-keys: create, list, get, rename or re-scope, delete (revoke for good), rotate.
// A key may only create or widen keys up to its own scope, so a key never exceeds its maker. An
// organization key creates or rotates none here: its organization's keys have routes of their own.
import { Type } from '@sinclair/typebox';
import { sendData, type RallyContext } from '../http/context.ts';
import { sendKeysetList } from '../http/pagination.ts';
import { createCursorCodec } from '../../core/pagination/keyset.ts';
import { assertThat } from '../http/problem.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { NOT_FOR_APPS } from '../../core/auth/scopes.ts';
import { generateApiKey } from '../../core/api-keys/secrets.ts';
import { findApiKey, insertApiKeyWithinCap, listApiKeys, updateApiKey } from '../../core/api-keys/queries.ts';
import { deleteApiKey, rotateApiKey, type RotationDependencies } from '../../core/api-keys/rotation.ts';
import { assertNotOrganizationKey } from '../../core/organizations/roles.ts';
import {
  ApiKeyCreate,
  ApiKeyEnvelope,
  ApiKeyList,
  ApiKeyListQuery,
  ApiKeyParams,
  ApiKeyUpdate,
  ApiKeyWithSecretEnvelope,
  broadestScope,
  RotatedKeyEnvelope,
  scopeRank,
  toApiKey,
  type ScopeLevel,
} from './schemas.ts';

const cursor = createCursorCodec(Type.Tuple([Type.String({ format: 'date-time' }), Type.String({ format: 'uuid' })]), 'api-keys');

function assertWithinCallerScope(ctx: RallyContext, scope: ScopeLevel) {
  const principal = ctx.state.principal!;
  assertThat(scopeRank(scope) <= scopeRank(principal.scope), 'forbidden', `A "${principal.scope}" key cannot grant "${scope}".`, {
    code: 'insufficient_scope',
  });
}

const base = { tag: 'API keys', auth: 'required' } as const;

export function createApiKeyRoutes(deps: RotationDependencies): AnyRouteSpec[] {
  return [
    defineRoute({
      ...base,
      scope: NOT_FOR_APPS,
      method: 'get',
      path: '/v1/api-keys',
      operationId: 'listApiKeys',
      permission: 'read',
      summary: 'List your API keys',
      description: 'Your API keys, newest first.',
      query: ApiKeyListQuery,
      responses: { 200: { description: 'Keys (never the raw secrets)', schema: ApiKeyList } },
      async handler(ctx, { query }) {
        await sendKeysetList(ctx, query, {
          cursor,
          rows: (after, limit) => listApiKeys(deps.db, ctx.state.principal!.userId, after, limit),
          position: (row) => [row.created_at, row.id],
          present: toApiKey,
        });
      },
    }),
    defineRoute({
      ...base,
      scope: NOT_FOR_APPS,
      method: 'post',
      path: '/v1/api-keys',
      operationId: 'createApiKey',
      revealsSecret: true,
      permission: 'write',
      summary: 'Create an API key',
      description: 'Create a key (at most 25 live ones per account); the raw key is in this answer only.',
      body: ApiKeyCreate,
      responses: {
        201: { description: 'The key, with its raw secret', schema: ApiKeyWithSecretEnvelope },
        403: { description: 'An organization key: create organization keys with POST /v1/organizations/{id}/api-keys' },
      },
      async handler(ctx, { body }) {
        assertNotOrganizationKey(ctx.state.principal!, 'create personal API keys', 'POST /v1/organizations/{id}/api-keys');
        const scope = broadestScope(body.scopes ?? ['read']);
        assertWithinCallerScope(ctx, scope);
        const key = generateApiKey(body.environment ?? 'live');
        const row = await insertApiKeyWithinCap(deps.db, {
          userId: ctx.state.principal!.userId,
          name: body.name,
          scope,
          environment: body.environment ?? 'live',
          key,
        });
        ctx.set('Location', `/v1/api-keys/${row.id}`);
        sendData(ctx, { ...toApiKey(row), key: key.raw }, 201);
      },
    }),
    defineRoute({
      ...base,
      scope: NOT_FOR_APPS,
      method: 'get',
      path: '/v1/api-keys/:id',
      operationId: 'getApiKey',
      permission: 'read',
      summary: 'Get an API key',
      description: 'One of your keys.',
      params: ApiKeyParams,
      responses: { 200: { description: 'The key', schema: ApiKeyEnvelope } },
      async handler(ctx, { params }) {
        const row = await findApiKey(deps.db, ctx.state.principal!.userId, params.id);
        assertThat(row, 'not-found', `You have no API key ${params.id}.`);
        sendData(ctx, toApiKey(row));
      },
    }),
    defineRoute({
      ...base,
      scope: NOT_FOR_APPS,
      method: 'patch',
      path: '/v1/api-keys/:id',
      operationId: 'updateApiKey',
      permission: 'write',
      summary: 'Update an API key',
      description: 'Rename a key or change its scope.',
      params: ApiKeyParams,
      body: ApiKeyUpdate,
      responses: { 200: { description: 'The key', schema: ApiKeyEnvelope } },
      async handler(ctx, { params, body }) {
        const scope = body.scopes ? broadestScope(body.scopes) : undefined;
        if (scope) assertWithinCallerScope(ctx, scope);
        const row = await updateApiKey(deps.db, ctx.state.principal!.userId, params.id, { name: body.name, scope });
        assertThat(row, 'not-found', `You have no active API key ${params.id}.`);
        sendData(ctx, toApiKey(row));
      },
    }),
    ...createKeyRevocationRoutes(deps),
  ];
}

/** Revoking and rotating a key: the routes that end a secret's life. */
function createKeyRevocationRoutes(deps: RotationDependencies): AnyRouteSpec[] {
  return [
    defineRoute({
      ...base,
      scope: NOT_FOR_APPS,
      method: 'delete',
      path: '/v1/api-keys/:id',
      operationId: 'deleteApiKey',
      permission: 'destroy',
      summary: 'Revoke an API key',
      description: 'Revoke a key at once and for good.',
      params: ApiKeyParams,
      responses: { 204: { description: 'Revoked' } },
      async handler(ctx, { params }) {
        await deleteApiKey(deps, ctx.state.principal!.userId, params.id);
        ctx.status = 204;
      },
    }),
    defineRoute({
      ...base,
      scope: NOT_FOR_APPS,
      method: 'post',
      path: '/v1/api-keys/:id/rotate',
      operationId: 'rotateApiKey',
      revealsSecret: true,
      permission: 'destroy',
      summary: 'Rotate an API key',
      description: 'Issue a replacement; the old key keeps working for RALLY_KEY_GRACE_PERIOD (24h), then is revoked by a workflow.',
      params: ApiKeyParams,
      responses: {
        200: { description: 'The new key with its raw secret, and the old key with its grace end', schema: RotatedKeyEnvelope },
        403: { description: "An organization key: rotate the organization's keys with POST /v1/organizations/{id}/api-keys/{key_id}/rotate" },
      },
      async handler(ctx, { params }) {
        assertNotOrganizationKey(ctx.state.principal!, 'rotate keys here', 'POST /v1/organizations/{id}/api-keys/{key_id}/rotate');
        const { newKey, raw, oldKey } = await rotateApiKey(deps, ctx.state.principal!.userId, params.id);
        sendData(ctx, { new_key: { ...toApiKey(newKey), key: raw }, old_key: toApiKey(oldKey) });
      },
    }),
  ];
}
