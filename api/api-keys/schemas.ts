// Shapes of API keys on the wire. `scopes` is a list for the spec's sake; a key has one level, the
// broadest named (read < read_write < full).
import { Type } from '@sinclair/typebox';
import { CursorQuery, LimitQuery, PaginationSchema } from '../http/pagination.ts';
import type { ApiKeyRow } from '../../core/api-keys/queries.ts';

import { Meta } from '../http/envelopes.ts';
export const ScopeName = Type.Union([Type.Literal('read'), Type.Literal('read_write'), Type.Literal('full')]);
const Scopes = Type.Array(ScopeName, { minItems: 1, maxItems: 3, uniqueItems: true, description: 'read, read_write or full; the broadest one named applies.' });

export const ApiKeyCreate = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    scopes: Type.Optional(Scopes),
    environment: Type.Optional(Type.Union([Type.Literal('live'), Type.Literal('test')], { default: 'live' })),
  },
  { additionalProperties: false },
);

export const ApiKeyUpdate = Type.Object(
  { name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })), scopes: Type.Optional(Scopes) },
  { additionalProperties: false, minProperties: 1 },
);

export const ApiKey = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  scopes: Type.Array(ScopeName),
  environment: Type.Union([Type.Literal('live'), Type.Literal('test')]),
  prefix: Type.String({ description: 'The first characters of the key, to recognise it.' }),
  status: Type.Union([Type.Literal('active'), Type.Literal('rotating'), Type.Literal('revoked')]),
  created_at: Type.String({ format: 'date-time' }),
  expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'End of the grace window of a rotated key.' }),
  revoked_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  replaced_by: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
});

export const ApiKeyWithSecret = Type.Composite([ApiKey, Type.Object({ key: Type.String({ description: 'The raw key. Shown once; store it now.' }) })]);

export const ApiKeyEnvelope = Type.Object({ data: ApiKey, meta: Meta });
export const ApiKeyWithSecretEnvelope = Type.Object({ data: ApiKeyWithSecret, meta: Meta });
export const RotatedKeyEnvelope = Type.Object({ data: Type.Object({ new_key: ApiKeyWithSecret, old_key: ApiKey }), meta: Meta });
export const ApiKeyList = Type.Object({ data: Type.Array(ApiKey), pagination: PaginationSchema, meta: Meta });

// An organization's keys also name the person who created each, to know which to rotate when they leave.
const CreatedBy = Type.Object({
  created_by: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
    description: 'The user who created the key; null when unknown (made before this was recorded).',
  }),
});
export const OrganizationApiKey = Type.Composite([ApiKey, CreatedBy]);
export const OrganizationApiKeyWithSecret = Type.Composite([ApiKeyWithSecret, CreatedBy]);
export const OrganizationApiKeyWithSecretEnvelope = Type.Object({ data: OrganizationApiKeyWithSecret, meta: Meta });
export const OrganizationRotatedKeyEnvelope = Type.Object({
  data: Type.Object({ new_key: OrganizationApiKeyWithSecret, old_key: OrganizationApiKey }),
  meta: Meta,
});
export const OrganizationApiKeyList = Type.Object({ data: Type.Array(OrganizationApiKey), pagination: PaginationSchema, meta: Meta });

export const ApiKeyParams = Type.Object({ id: Type.String({ format: 'uuid' }) });
export const ApiKeyListQuery = Type.Object({ cursor: Type.Optional(CursorQuery), limit: LimitQuery() }, { additionalProperties: false });

const SCOPE_ORDER = ['read', 'read_write', 'full'] as const;
export type ScopeLevel = (typeof SCOPE_ORDER)[number];
export const broadestScope = (scopes: readonly ScopeLevel[]): ScopeLevel => SCOPE_ORDER[Math.max(...scopes.map((scope) => SCOPE_ORDER.indexOf(scope)))]!;
export const scopeRank = (scope: ScopeLevel) => SCOPE_ORDER.indexOf(scope);

export function toApiKey(row: ApiKeyRow) {
  const status = row.revoked_at || (row.expires_at && Date.parse(row.expires_at) <= Date.now()) ? 'revoked' : row.expires_at ? 'rotating' : 'active';
  return {
    id: row.id,
    name: row.name,
    scopes: [row.scope],
    environment: row.environment,
    prefix: row.display_prefix,
    status,
    created_at: row.created_at,
    expires_at: row.expires_at,
    revoked_at: row.revoked_at,
    replaced_by: row.replaced_by,
  };
}

export const toOrganizationApiKey = (row: ApiKeyRow) => ({ ...toApiKey(row), created_by: row.created_by });
