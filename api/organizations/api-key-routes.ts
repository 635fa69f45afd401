// /v1/organizations/{org_id}/api-keys: keys that act for the organization (owner and admins manage
// them). Same shapes, prefixes, scopes and grace-period rotation as personal keys (/v1/api-keys), plus
// `created_by`: the person who created (or rotated) the key, or who created the organization key that did.
import { Type } from '@sinclair/typebox';
import { createCursorCodec } from '../../core/pagination/keyset.ts';
import { listApiKeys } from '../../core/api-keys/queries.ts';
import { deleteApiKey, rotateApiKey, type RotationDependencies } from '../../core/api-keys/rotation.ts';
import { generateApiKey } from '../../core/api-keys/secrets.ts';
import { createOrganizationKey, organizationKeyHolder, requireKeyHolder } from '../../core/organizations/api-keys.ts';
import { accountablePerson } from '../../core/organizations/roles.ts';
import { sendData } from '../http/context.ts';
import { sendKeysetList } from '../http/pagination.ts';
import { assertThat } from '../http/problem.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { NOT_FOR_APPS } from '../../core/auth/scopes.ts';
import {
  ApiKeyCreate,
  ApiKeyListQuery,
  broadestScope,
  OrganizationApiKeyList,
  OrganizationApiKeyWithSecretEnvelope,
  OrganizationRotatedKeyEnvelope,
  scopeRank,
  toOrganizationApiKey,
} from '../api-keys/schemas.ts';
import { OrgParams } from './schemas.ts';

const cursor = createCursorCodec(Type.Tuple([Type.String({ format: 'date-time' }), Type.String({ format: 'uuid' })]), 'organization-api-keys');
const OrgKeyParams = Type.Object({ org_id: Type.String({ format: 'uuid' }), id: Type.String({ format: 'uuid' }) });

export function createOrganizationApiKeyRoutes(deps: RotationDependencies): AnyRouteSpec[] {
  // No route here is open to an OAuth app's token (organization management is a person's or a key's).
  const base = { tag: 'Organizations', auth: 'required', scope: NOT_FOR_APPS } as const;
  return [
    defineRoute({
      ...base,
      method: 'get',
      path: '/v1/organizations/:org_id/api-keys',
      operationId: 'listOrganizationApiKeys',
      permission: 'read',
      summary: "List an organization's API keys",
      description: "The organization's API keys, newest first (owner and admins).",
      params: OrgParams,
      query: ApiKeyListQuery,
      responses: { 200: { description: 'Keys (never the raw secrets), each with who created it', schema: OrganizationApiKeyList } },
      async handler(ctx, { params, query }) {
        const holder = await organizationKeyHolder(deps.db, params.org_id, ctx.state.principal!.userId);
        await sendKeysetList(ctx, query, {
          cursor,
          // No key holder yet: the organization never had a key.
          rows: async (after, limit) => (holder ? listApiKeys(deps.db, holder, after, limit) : []),
          position: (row) => [row.created_at, row.id],
          present: toOrganizationApiKey,
        });
      },
    }),
    defineRoute({
      ...base,
      method: 'post',
      path: '/v1/organizations/:org_id/api-keys',
      operationId: 'createOrganizationApiKey',
      permission: 'write',
      summary: 'Create an organization API key',
      description: "Create a key that acts for the organization; the raw key is in this answer only. 402 beyond the tier's api_key_limit.",
      params: OrgParams,
      body: ApiKeyCreate,
      responses: {
        201: { description: 'The key, with its raw secret', schema: OrganizationApiKeyWithSecretEnvelope },
        402: { description: 'api_key_limit_reached' },
      },
      async handler(ctx, { params, body }) {
        const principal = ctx.state.principal!;
        const scope = broadestScope(body.scopes ?? ['read']);
        assertThat(scopeRank(scope) <= scopeRank(principal.scope), 'forbidden', `A "${principal.scope}" key cannot grant "${scope}".`, {
          code: 'insufficient_scope',
        });
        const environment = body.environment ?? 'live';
        const key = generateApiKey(environment);
        const row = await createOrganizationKey(deps.db, params.org_id, principal.userId, {
          name: body.name,
          scope,
          environment,
          key,
          createdBy: accountablePerson(principal),
        });
        ctx.set('Location', `/v1/organizations/${params.org_id}/api-keys/${row.id}`);
        sendData(ctx, { ...toOrganizationApiKey(row), key: key.raw }, 201);
      },
    }),
    defineRoute({
      ...base,
      method: 'delete',
      path: '/v1/organizations/:org_id/api-keys/:id',
      operationId: 'deleteOrganizationApiKey',
      permission: 'destroy',
      summary: 'Revoke an organization API key',
      description: "Revoke one of the organization's keys at once and for good.",
      params: OrgKeyParams,
      responses: { 204: { description: 'Revoked' } },
      async handler(ctx, { params }) {
        await deleteApiKey(deps, await requireKeyHolder(deps.db, params.org_id, ctx.state.principal!.userId, params.id), params.id);
        ctx.status = 204;
      },
    }),
    defineRoute({
      ...base,
      method: 'post',
      path: '/v1/organizations/:org_id/api-keys/:id/rotate',
      operationId: 'rotateOrganizationApiKey',
      permission: 'destroy',
      summary: 'Rotate an organization API key',
      description: 'Issue a replacement; the old key keeps working for RALLY_KEY_GRACE_PERIOD, then the rotation workflow revokes it.',
      params: OrgKeyParams,
      responses: { 200: { description: 'The new key with its raw secret, and the old key with its grace end', schema: OrganizationRotatedKeyEnvelope } },
      async handler(ctx, { params }) {
        const principal = ctx.state.principal!;
        const holder = await requireKeyHolder(deps.db, params.org_id, principal.userId, params.id);
        const { newKey, raw, oldKey } = await rotateApiKey(deps, holder, params.id, accountablePerson(principal));
        sendData(ctx, { new_key: { ...toOrganizationApiKey(newKey), key: raw }, old_key: toOrganizationApiKey(oldKey) });
      },
    }),
  ];
}
