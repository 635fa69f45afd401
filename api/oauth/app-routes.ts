// /v1/oauth/apps: a logged-in developer registers and manages their own OAuth apps (the operator's
// CLI stays for apps acting for an owner). A secret is shown once, at creation and at rotation.
import { Type } from '@sinclair/typebox';
import { sendData, type RallyContext } from '../http/context.ts';
import { sendKeysetList } from '../http/pagination.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { NOT_FOR_APPS } from '../../core/auth/scopes.ts';
import type { OAuthClient } from '../../core/oauth/clients.ts';
import {
  deleteDeveloperApp,
  findDeveloperApp,
  listDeveloperApps,
  registerDeveloperApp,
  rotateClientSecret,
  updateDeveloperApp,
  type DeveloperAppDependencies,
} from '../../core/oauth/developer-apps.ts';
import { createCursorCodec } from '../../core/pagination/keyset.ts';
import {
  AppAuthorizationListQuery,
  AppAuthorizationParams,
  DeveloperAppCreate,
  DeveloperAppEnvelope,
  DeveloperAppList,
  DeveloperAppUpdate,
  DeveloperAppWithSecretEnvelope,
} from './schemas.ts';

const cursor = createCursorCodec(Type.Tuple([Type.String({ format: 'date-time' }), Type.String({ minLength: 1, maxLength: 100 })]), 'oauth-apps');

function present(app: OAuthClient) {
  const { client_id, name, redirect_uris, scopes, confidential, previous_secret_expires_at, created_at } = app;
  return { client_id, name, redirect_uris, scopes, confidential, previous_secret_expires_at, created_at };
}

const developerOf = (ctx: RallyContext) => ctx.state.principal!.userId;
const scopeList = (scopes: readonly string[] | undefined) => scopes?.join(' ');

export function createDeveloperAppRoutes(deps: DeveloperAppDependencies & { accessTokenTtlMs: number }): AnyRouteSpec[] {
  // A developer's own login manages their apps; no app manages apps.
  const base = { tag: 'OAuth 2.0', auth: 'required', scope: NOT_FOR_APPS } as const;
  const params = AppAuthorizationParams;
  return [
    defineRoute({
      ...base,
      method: 'post',
      path: '/v1/oauth/apps',
      operationId: 'registerOAuthApp',
      revealsSecret: true,
      permission: 'write',
      summary: 'Register an OAuth app',
      description:
        'Register an OAuth app (at most 10 per account, with a verified email address); a confidential app gets its client_secret in this answer only.',
      body: DeveloperAppCreate,
      responses: {
        201: { description: 'The app, with its secret', schema: DeveloperAppWithSecretEnvelope },
        403: { description: 'email_unverified: your email address is not verified yet (the consent screen names you as the app’s owner)' },
        422: { description: 'A field breaks a rule; reserved_name: the platform’s own name ("Rally", in any spelling) is not for self-service apps' },
      },
      async handler(ctx, { body }) {
        const { client, secret } = await registerDeveloperApp(deps.db, developerOf(ctx), {
          name: body.name,
          redirectUris: body.redirect_uris,
          scopes: scopeList(body.scopes),
          confidential: body.confidential,
        });
        ctx.set('Location', `/v1/oauth/apps/${client.client_id}`);
        sendData(ctx, { ...present(client), ...(secret ? { client_secret: secret } : {}) }, 201);
      },
    }),
    defineRoute({
      ...base,
      method: 'get',
      path: '/v1/oauth/apps',
      operationId: 'listOAuthApps',
      permission: 'read',
      summary: 'List your OAuth apps',
      description: 'The apps you registered, newest first (never their secrets).',
      query: AppAuthorizationListQuery,
      responses: { 200: { description: 'Your apps', schema: DeveloperAppList } },
      async handler(ctx, { query }) {
        await sendKeysetList(ctx, query, {
          cursor,
          rows: (after, limit) => listDeveloperApps(deps.db, developerOf(ctx), after, limit),
          position: (row) => [row.created_at, row.client_id],
          present,
        });
      },
    }),
    defineRoute({
      ...base,
      method: 'get',
      path: '/v1/oauth/apps/:client_id',
      operationId: 'getOAuthApp',
      permission: 'read',
      summary: 'Get an OAuth app',
      description: 'One of your apps.',
      params,
      responses: { 200: { description: 'The app', schema: DeveloperAppEnvelope } },
      async handler(ctx, { params }) {
        sendData(ctx, present(await findDeveloperApp(deps.db, developerOf(ctx), params.client_id)));
      },
    }),
    defineRoute({
      ...base,
      method: 'patch',
      path: '/v1/oauth/apps/:client_id',
      operationId: 'updateOAuthApp',
      permission: 'write',
      summary: 'Update an OAuth app',
      description: 'Rename an app, replace its redirect URIs or its scopes (tokens already issued keep theirs).',
      params,
      body: DeveloperAppUpdate,
      responses: {
        200: { description: 'The app', schema: DeveloperAppEnvelope },
        422: { description: 'A field breaks a rule; reserved_name: the platform’s own name is not for self-service apps' },
      },
      async handler(ctx, { params, body }) {
        const change = { name: body.name, redirectUris: body.redirect_uris, scopes: scopeList(body.scopes) };
        sendData(ctx, present(await updateDeveloperApp(deps.db, developerOf(ctx), params.client_id, change)));
      },
    }),
    defineRoute({
      ...base,
      method: 'delete',
      path: '/v1/oauth/apps/:client_id',
      operationId: 'deleteOAuthApp',
      permission: 'destroy',
      summary: 'Delete an OAuth app',
      description: 'Delete an app: every token it holds stops working at once.',
      params,
      responses: { 204: { description: 'Deleted' } },
      async handler(ctx, { params }) {
        await deleteDeveloperApp(deps.db, developerOf(ctx), params.client_id, deps.accessTokenTtlMs);
        ctx.status = 204;
      },
    }),
    defineRoute({
      ...base,
      method: 'post',
      path: '/v1/oauth/apps/:client_id/rotate-secret',
      operationId: 'rotateOAuthAppSecret',
      revealsSecret: true,
      permission: 'destroy',
      summary: "Rotate an app's client secret",
      description: 'A new client_secret, shown once; the previous one keeps working for RALLY_KEY_GRACE_PERIOD (24h), then a workflow erases it.',
      params,
      responses: { 200: { description: 'The app, with its new secret', schema: DeveloperAppWithSecretEnvelope } },
      async handler(ctx, { params }) {
        const { client, secret } = await rotateClientSecret(deps, developerOf(ctx), params.client_id);
        sendData(ctx, { ...present(client), client_secret: secret });
      },
    }),
  ];
}
