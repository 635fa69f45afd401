// /v1/webhooks: register, list, read, change, delete endpoints and rotate their signing secrets.
// The secret is in the create and rotate answers only. Deliveries: ./delivery-routes.ts.
import { Type } from '@sinclair/typebox';
import type { DatabasePool } from 'slonik';
import type { Config } from '../../platform/config.ts';
import { sendData } from '../http/context.ts';
import { sendKeysetList } from '../http/pagination.ts';
import { createCursorCodec } from '../../core/pagination/keyset.ts';
import { assertThat, fieldError } from '../http/problem.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { NOT_FOR_APPS } from '../../core/auth/scopes.ts';
import { createDeliveryRoutes } from './delivery-routes.ts';
import { deleteEndpoint, findEndpoint, insertEndpoint, listEndpoints, rotateSecret, updateEndpoint } from '../../core/webhooks/queries.ts';
import {
  toWebhookEndpoint,
  WebhookCreate,
  WebhookEnvelope,
  WebhookList,
  WebhookListQuery,
  WebhookParams,
  WebhookUpdate,
  WebhookWithSecretEnvelope,
} from './schemas.ts';
import { createSecretBox, generateSigningSecret, type SecretBox } from '../../core/webhooks/signing-secrets.ts';
import { refuseWebhookUrl } from '../../core/webhooks/url-guard.ts';
import { queuePing } from '../../core/webhooks/ping.ts';
import { actorOf } from '../../core/events/record-event.ts';

// How long POST …/test waits beyond RALLY_WEBHOOK_TIMEOUT: the dispatcher's poll and the workflow's start.
const PING_MARGIN_MS = 3_000;

export type WebhookRouteDependencies = { db: DatabasePool; config: Config };

const cursor = createCursorCodec(Type.Tuple([Type.String({ format: 'date-time' }), Type.String({ format: 'uuid' })]), 'webhooks');

const base = { tag: 'Webhooks', auth: 'required' } as const;
const notFound = (id: string) => `You have no webhook endpoint ${id}.`;

export function createWebhookRoutes(deps: WebhookRouteDependencies): AnyRouteSpec[] {
  const { db, config } = deps;
  const secrets = createSecretBox(config.encryptionKey);
  const policy = { production: config.nodeEnv === 'production', allowPrivate: config.webhooks.allowPrivate };
  async function assertAllowedUrl(url: string) {
    const refusal = await refuseWebhookUrl(url, policy);
    if (refusal) throw fieldError('url', 'url_refused', refusal);
  }
  return [
    defineRoute({
      ...base,
      scope: NOT_FOR_APPS,
      method: 'get',
      path: '/v1/webhooks',
      operationId: 'listWebhooks',
      permission: 'read',
      summary: 'List your webhook endpoints',
      description: 'Your webhook endpoints, newest first.',
      query: WebhookListQuery,
      responses: { 200: { description: 'Endpoints (never their secrets)', schema: WebhookList } },
      async handler(ctx, { query }) {
        await sendKeysetList(ctx, query, {
          cursor,
          rows: (after, limit) => listEndpoints(db, ctx.state.principal!.userId, after, limit),
          position: (row) => [row.created_at, row.id],
          present: toWebhookEndpoint,
        });
      },
    }),
    defineRoute({
      ...base,
      scope: NOT_FOR_APPS,
      method: 'post',
      path: '/v1/webhooks',
      operationId: 'createWebhook',
      revealsSecret: true,
      permission: 'write',
      summary: 'Create a webhook endpoint',
      description:
        "Register an endpoint for events of your petitions (an administrator's, made with a full credential, " +
        'get every event); at most 20 per account; the signing secret is in this answer only. ' +
        'A signed `ping` event is sent to the new endpoint at once (see its deliveries).',
      body: WebhookCreate,
      responses: { 201: { description: 'The endpoint with its secret', schema: WebhookWithSecretEnvelope } },
      async handler(ctx, { body }) {
        await assertAllowedUrl(body.url);
        const secret = generateSigningSecret();
        const principal = ctx.state.principal!;
        // Every platform event is an administrator's to receive, and only through a full credential.
        const platformWide = principal.role === 'admin' && principal.scope === 'full';
        // The endpoint and its first ping commit together: every new endpoint gets one, as on GitHub.
        const row = await db.transaction(async (tx) => {
          const created = await insertEndpoint(tx, {
            userId: principal.userId,
            url: body.url,
            events: body.events,
            sealedSecret: secrets.seal(secret),
            platformWide,
          });
          await queuePing(tx, created, actorOf(principal));
          return created;
        });
        ctx.set('Location', `/v1/webhooks/${row.id}`);
        sendData(ctx, { ...toWebhookEndpoint(row), secret }, 201);
      },
    }),
    defineRoute({
      ...base,
      scope: NOT_FOR_APPS,
      method: 'get',
      path: '/v1/webhooks/:id',
      operationId: 'getWebhook',
      permission: 'read',
      summary: 'Get a webhook endpoint',
      description: 'One of your endpoints.',
      params: WebhookParams,
      responses: { 200: { description: 'The endpoint', schema: WebhookEnvelope } },
      async handler(ctx, { params }) {
        const row = await findEndpoint(db, ctx.state.principal!.userId, params.id);
        assertThat(row, 'not-found', notFound(params.id));
        sendData(ctx, toWebhookEndpoint(row));
      },
    }),
    defineRoute({
      ...base,
      scope: NOT_FOR_APPS,
      method: 'patch',
      path: '/v1/webhooks/:id',
      operationId: 'updateWebhook',
      permission: 'write',
      summary: 'Update a webhook endpoint',
      description: 'Change the URL or events, or switch the endpoint off and on (on again sends what waited).',
      params: WebhookParams,
      body: WebhookUpdate,
      responses: { 200: { description: 'The endpoint', schema: WebhookEnvelope } },
      async handler(ctx, { params, body }) {
        if (body.url !== undefined) await assertAllowedUrl(body.url);
        const row = await updateEndpoint(db, ctx.state.principal!.userId, params.id, { url: body.url, events: body.events, isActive: body.is_active });
        assertThat(row, 'not-found', notFound(params.id));
        sendData(ctx, toWebhookEndpoint(row));
      },
    }),
    ...createEndpointEndingRoutes(deps, secrets),
  ];
}

/** Ending an endpoint, or its secret: delete and rotate (the old secret keeps signing for a grace period), then the deliveries. */
function createEndpointEndingRoutes(deps: WebhookRouteDependencies, secrets: SecretBox): AnyRouteSpec[] {
  const { db, config } = deps;
  return [
    defineRoute({
      ...base,
      scope: NOT_FOR_APPS,
      method: 'delete',
      path: '/v1/webhooks/:id',
      operationId: 'deleteWebhook',
      permission: 'destroy',
      summary: 'Delete a webhook endpoint',
      description: 'Delete an endpoint with its delivery history.',
      params: WebhookParams,
      responses: { 204: { description: 'Deleted' } },
      async handler(ctx, { params }) {
        assertThat(await deleteEndpoint(db, ctx.state.principal!.userId, params.id), 'not-found', notFound(params.id));
        ctx.status = 204;
      },
    }),
    defineRoute({
      ...base,
      scope: NOT_FOR_APPS,
      method: 'post',
      path: '/v1/webhooks/:id/rotate-secret',
      operationId: 'rotateWebhookSecret',
      revealsSecret: true,
      permission: 'destroy',
      summary: 'Rotate a webhook signing secret',
      description:
        'Issue a new signing secret; for RALLY_WEBHOOK_SECRET_GRACE_PERIOD (24h) deliveries also carry X-Rally-Signature-Previous, signed with the old one.',
      params: WebhookParams,
      responses: { 200: { description: 'The endpoint with its new secret', schema: WebhookWithSecretEnvelope } },
      async handler(ctx, { params }) {
        const secret = generateSigningSecret();
        const row = await rotateSecret(db, ctx.state.principal!.userId, params.id, secrets.seal(secret), config.webhooks.secretGracePeriodMs);
        assertThat(row, 'not-found', notFound(params.id));
        sendData(ctx, { ...toWebhookEndpoint(row), secret });
      },
    }),
    ...createDeliveryRoutes({ db, notFound, answerWithinMs: config.webhookTimeoutMs + PING_MARGIN_MS, eventRetentionMs: config.personalData.eventRetentionMs }),
  ];
}
