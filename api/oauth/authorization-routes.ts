// /v1/users/me/authorizations: the apps a user let act for them, and taking that back. Only the
// user themself (their login token or an API key) manages these; an app cannot see or revoke grants.
import { Type } from '@sinclair/typebox';
import type { DatabasePool } from 'slonik';
import type { RallyContext } from '../http/context.ts';
import { sendKeysetList } from '../http/pagination.ts';
import { assertThat } from '../http/problem.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { NOT_FOR_APPS } from '../../core/auth/scopes.ts';
import { createCursorCodec } from '../../core/pagination/keyset.ts';
import { listUserAuthorizations, presentUserAuthorization, revokeUserAuthorization } from '../../core/oauth/user-authorizations.ts';
import { AppAuthorizationList, AppAuthorizationListQuery, AppAuthorizationParams } from './schemas.ts';

const cursor = createCursorCodec(Type.Tuple([Type.String({ format: 'date-time' }), Type.String({ minLength: 1, maxLength: 100 })]), 'oauth-authorizations');

function userOf(ctx: RallyContext): string {
  const principal = ctx.state.principal!;
  assertThat(principal.kind !== 'oauth_app', 'forbidden', 'Apps cannot manage authorizations; the user does.', { code: 'insufficient_scope' });
  return principal.userId;
}

export function createAppAuthorizationRoutes(deps: { db: DatabasePool; accessTokenTtlMs: number }): AnyRouteSpec[] {
  const base = { tag: 'OAuth 2.0', auth: 'required' } as const;
  return [
    defineRoute({
      ...base,
      scope: NOT_FOR_APPS,
      method: 'get',
      path: '/v1/users/me/authorizations',
      operationId: 'listAppAuthorizations',
      permission: 'read',
      summary: 'List the apps you authorized',
      description: 'The apps you authorized, most recently approved first.',
      query: AppAuthorizationListQuery,
      responses: { 200: { description: 'Your authorizations', schema: AppAuthorizationList } },
      async handler(ctx, { query }) {
        await sendKeysetList(ctx, query, {
          cursor,
          rows: (after, limit) => listUserAuthorizations(deps.db, userOf(ctx), limit, after),
          position: (row) => [row.updated_at, row.client_id],
          present: presentUserAuthorization,
        });
      },
    }),
    defineRoute({
      ...base,
      scope: NOT_FOR_APPS,
      method: 'delete',
      path: '/v1/users/me/authorizations/:client_id',
      operationId: 'revokeAppAuthorization',
      permission: 'destroy',
      summary: "Revoke an app's access",
      description: "Take an app's access back: every token it holds for you stops working at once.",
      params: AppAuthorizationParams,
      responses: { 204: { description: 'Revoked' } },
      async handler(ctx, { params }) {
        const revoked = await revokeUserAuthorization(deps.db, { userId: userOf(ctx), clientId: params.client_id, accessTokenTtlMs: deps.accessTokenTtlMs });
        assertThat(revoked, 'not-found', `You have not authorized the app "${params.client_id}".`);
        ctx.status = 204;
      },
    }),
  ];
}
