// /v1/webhooks/{id}/deliveries (list, one with its attempts, redeliver), /v1/webhooks/{id}/replay and
// /v1/webhooks/{id}/test (a ping now, answered with its first attempt).
import { Type } from '@sinclair/typebox';
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { sendData, type RallyContext } from '../http/context.ts';
import { sendKeysetList } from '../http/pagination.ts';
import { createCursorCodec } from '../../core/pagination/keyset.ts';
import { assertThat } from '../http/problem.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { NOT_FOR_APPS } from '../../core/auth/scopes.ts';
import { findDelivery, findEndpoint, listAttempts, listDeliveries } from '../../core/webhooks/queries.ts';
import { redeliver, replaySince } from '../../core/webhooks/redelivery.ts';
import { assertPingAllowed, awaitFirstAttempt, PINGS_PER_HOUR, queuePing } from '../../core/webhooks/ping.ts';
import { actorOf } from '../../core/events/record-event.ts';
import {
  DeliveryEnvelope,
  DeliveryList,
  DeliveryListQuery,
  DeliveryParams,
  ReplayEnvelope,
  ReplayRequest,
  toAttempt,
  toDelivery,
  WebhookParams,
} from './schemas.ts';

const cursor = createCursorCodec(Type.Tuple([Type.String({ format: 'date-time' }), Type.String({ format: 'uuid' })]), 'webhook-deliveries');

type DeliveryRouteDependencies = {
  db: DatabasePool;
  notFound: (id: string) => string;
  /** How long POST …/test waits for the ping's first attempt before answering 202. */
  answerWithinMs: number;
  /** RALLY_EVENT_RETENTION, how far back a replay reaches. */
  eventRetentionMs: number;
};

const inactive = 'The endpoint is switched off; set is_active to true first (what waited is then sent).';
const base = { tag: 'Webhooks', auth: 'required' } as const;

async function ownEndpoint(deps: DeliveryRouteDependencies, ctx: RallyContext, id: string, connection: CommonQueryMethods = deps.db) {
  const endpoint = await findEndpoint(connection, ctx.state.principal!.userId, id);
  assertThat(endpoint, 'not-found', deps.notFound(id));
  return endpoint;
}

export function createDeliveryRoutes(deps: DeliveryRouteDependencies): AnyRouteSpec[] {
  const { db } = deps;
  return [
    defineRoute({
      ...base,
      scope: NOT_FOR_APPS,
      method: 'get',
      path: '/v1/webhooks/:id/deliveries',
      operationId: 'listWebhookDeliveries',
      permission: 'read',
      summary: "List an endpoint's deliveries",
      description: 'Deliveries to an endpoint, newest first, optionally by status.',
      params: WebhookParams,
      query: DeliveryListQuery,
      responses: { 200: { description: 'Deliveries', schema: DeliveryList } },
      async handler(ctx, { params, query }) {
        await ownEndpoint(deps, ctx, params.id);
        await sendKeysetList(ctx, query, {
          cursor,
          rows: (after, limit) => listDeliveries(db, params.id, { status: query.status, after, limit }),
          position: (row) => [row.created_at, row.id],
          present: toDelivery,
        });
      },
    }),
    defineRoute({
      ...base,
      scope: NOT_FOR_APPS,
      method: 'get',
      path: '/v1/webhooks/:id/deliveries/:delivery_id',
      operationId: 'getWebhookDelivery',
      permission: 'read',
      summary: 'Get a delivery with its attempts',
      description: 'One delivery with every attempt: time, status code, latency, error, first bytes of the answer.',
      params: DeliveryParams,
      responses: { 200: { description: 'The delivery', schema: DeliveryEnvelope } },
      async handler(ctx, { params }) {
        await ownEndpoint(deps, ctx, params.id);
        const delivery = await findDelivery(db, params.id, params.delivery_id);
        assertThat(delivery, 'not-found', `Endpoint ${params.id} has no delivery ${params.delivery_id}.`);
        sendData(ctx, { ...toDelivery(delivery), attempts: (await listAttempts(db, delivery.id)).map(toAttempt) });
      },
    }),
    ...createResendRoutes(deps),
  ];
}

/** Sending again: one delivery, the events of a past window, a test ping. */
function createResendRoutes(deps: DeliveryRouteDependencies): AnyRouteSpec[] {
  const { db } = deps;
  return [
    defineRoute({
      ...base,
      scope: NOT_FOR_APPS,
      method: 'post',
      path: '/v1/webhooks/:id/deliveries/:delivery_id/redeliver',
      operationId: 'redeliverWebhookDelivery',
      permission: 'write',
      summary: 'Redeliver an event',
      description: "Send a delivery's event again, as a new delivery with its own id.",
      params: DeliveryParams,
      responses: { 202: { description: 'The new delivery, queued', schema: DeliveryEnvelope } },
      async handler(ctx, { params }) {
        const endpoint = await ownEndpoint(deps, ctx, params.id);
        assertThat(endpoint.is_active, 'conflict', inactive, { code: 'webhook_inactive' });
        const created = await redeliver(db, params.id, params.delivery_id);
        assertThat(created, 'not-found', `Endpoint ${params.id} has no delivery ${params.delivery_id}.`);
        ctx.set('Location', `/v1/webhooks/${params.id}/deliveries/${created.id}`);
        sendData(ctx, { ...toDelivery(created), attempts: [] }, 202);
      },
    }),
    defineRoute({
      ...base,
      scope: NOT_FOR_APPS,
      method: 'post',
      path: '/v1/webhooks/:id/replay',
      operationId: 'replayWebhookEvents',
      permission: 'write',
      summary: 'Replay events since a time',
      description:
        'Re-send every subscribed event since a time (after an outage of your receiver), up to 10,000 per call and 10 calls per endpoint per hour. ' +
        'Events are kept for RALLY_EVENT_RETENTION (30 days by default): an earlier `since` is refused with code replay_window.',
      params: WebhookParams,
      body: ReplayRequest,
      responses: {
        202: { description: 'How many deliveries were queued', schema: ReplayEnvelope },
        422: { description: '`since` is before the oldest time events are kept for (code replay_window; the detail names that time)' },
        429: { description: 'Replayed 10 times within the last hour (code replay_limit)' },
      },
      async handler(ctx, { params, body }) {
        const endpoint = await ownEndpoint(deps, ctx, params.id);
        assertThat(endpoint.is_active, 'conflict', inactive, { code: 'webhook_inactive' });
        const principal = ctx.state.principal!;
        // Every platform event only for a platform-wide endpoint, replayed by an administrator's full credential.
        const platformWide = endpoint.platform_wide && principal.role === 'admin' && principal.scope === 'full';
        const result = await replaySince(
          db,
          { id: endpoint.id, events: endpoint.events, ownerId: principal.userId, platformWide },
          body.since,
          deps.eventRetentionMs,
        );
        sendData(ctx, { replayed: result.replayed, next_since: result.nextSince }, 202);
      },
    }),
    defineRoute({
      ...base,
      scope: NOT_FOR_APPS,
      method: 'post',
      path: '/v1/webhooks/:id/test',
      operationId: 'testWebhook',
      permission: 'write',
      summary: 'Send a test ping',
      description:
        'Send a signed `ping` event (data: the endpoint id, URL and events) to the endpoint now. Answers 200 with the delivery and its ' +
        'first attempt (status code, time, latency, first bytes of the answer) once made, or 202 with the queued delivery if it was ' +
        `not made within RALLY_WEBHOOK_TIMEOUT and a few seconds. A failed ping is retried like any delivery. ${PINGS_PER_HOUR} per endpoint per hour.`,
      params: WebhookParams,
      responses: {
        200: { description: 'The delivery with its first attempt', schema: DeliveryEnvelope },
        202: { description: 'The delivery, queued: its attempts are in GET …/deliveries/{delivery_id}', schema: DeliveryEnvelope },
        429: { description: `Pinged ${PINGS_PER_HOUR} times within the last hour (code ping_limit)` },
      },
      async handler(ctx, { params }) {
        const principal = ctx.state.principal!;
        const queued = await db.transaction(async (tx) => {
          const endpoint = await ownEndpoint(deps, ctx, params.id, tx);
          assertThat(endpoint.is_active, 'conflict', inactive, { code: 'webhook_inactive' });
          await assertPingAllowed(tx, endpoint.id);
          return queuePing(tx, endpoint, actorOf(principal));
        });
        ctx.set('Location', `/v1/webhooks/${params.id}/deliveries/${queued.id}`);
        const attempt = await awaitFirstAttempt(db, queued.id, deps.answerWithinMs);
        if (!attempt) return sendData(ctx, { ...toDelivery(queued), attempts: [] }, 202);
        const delivery = (await findDelivery(db, params.id, queued.id)) ?? queued;
        sendData(ctx, { ...toDelivery(delivery), attempts: [toAttempt(attempt)] });
      },
    }),
  ];
}
