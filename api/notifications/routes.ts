// /v1/notifications: the caller's in-app notifications, their unread count, marking them read, and
// the per-type preferences that decide which are made at all (core/notifications/create.ts honours them).
// The fixed paths are declared before /:id so that the router never reads "preferences" as an id.
import { Type } from '@sinclair/typebox';
import type { DatabasePool } from 'slonik';
import { sendData, sendList } from '../http/context.ts';
import { createCursorCodec, paginate } from '../../core/pagination/keyset.ts';
import { assertThat, RallyError } from '../http/problem.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import {
  countNotifications,
  countUnread,
  findNotification,
  listNotifications,
  markRead,
  mergePreferences,
  readPreferences,
} from '../../core/notifications/queries.ts';
import {
  effectivePreferences,
  MarkReadRequest,
  MarkReadResult,
  NotificationEnvelope,
  NotificationList,
  NotificationListQuery,
  NotificationParams,
  PreferencesEnvelope,
  PreferencesPatch,
  toNotification,
  UnreadCountEnvelope,
} from './schemas.ts';

const cursor = createCursorCodec(Type.Tuple([Type.String({ format: 'date-time' }), Type.String({ format: 'uuid' })]), 'notifications');

export function createNotificationRoutes(deps: { db: DatabasePool }): AnyRouteSpec[] {
  const { db } = deps;
  const base = { tag: 'Notifications', auth: 'required' } as const;
  return [
    defineRoute({
      ...base,
      scope: 'read:profile',
      method: 'get',
      path: '/v1/notifications',
      operationId: 'listNotifications',
      permission: 'read',
      summary: 'List your notifications',
      description: 'Your notifications, newest first, with total and unread counts.',
      query: NotificationListQuery,
      responses: { 200: { description: 'Notifications', schema: NotificationList } },
      async handler(ctx, { query }) {
        const userId = ctx.state.principal!.userId;
        const [rows, counts] = await Promise.all([
          listNotifications(db, userId, { unreadOnly: query.unread_only, after: cursor.decode(query.cursor), limit: query.limit }),
          countNotifications(db, userId),
        ]);
        const { page, pagination } = paginate(rows, query.limit, (row) => cursor.encode([row.created_at, row.id]));
        sendList(ctx, page.map(toNotification), pagination, { counts });
      },
    }),
    defineRoute({
      ...base,
      scope: 'read:profile',
      method: 'get',
      path: '/v1/notifications/unread-count',
      operationId: 'countUnreadNotifications',
      permission: 'read',
      summary: 'Count unread notifications',
      description: 'How many of your notifications are unread.',
      responses: { 200: { description: 'The count', schema: UnreadCountEnvelope } },
      async handler(ctx) {
        sendData(ctx, { unread_count: await countUnread(db, ctx.state.principal!.userId) });
      },
    }),
    defineRoute({
      ...base,
      scope: 'write:profile',
      method: 'post',
      path: '/v1/notifications/mark-read',
      operationId: 'markNotificationsRead',
      permission: 'write',
      summary: 'Mark notifications read',
      description: 'Mark the given notifications read, or all of them with mark_all: true (exactly one of the two).',
      body: MarkReadRequest,
      responses: { 200: { description: 'How many changed, and what is left unread', schema: MarkReadResult } },
      async handler(ctx, { body }) {
        const ids = body.notification_ids;
        const all = body.mark_all === true;
        if (all === (ids !== undefined)) {
          throw new RallyError('validation-failed', 'Send notification_ids or mark_all: true, not both and not neither.', {
            errors: [{ field: 'notification_ids', code: 'required', message: 'give notification_ids, or mark_all: true' }],
          });
        }
        const userId = ctx.state.principal!.userId;
        const marked = await markRead(db, userId, all ? 'all' : ids!);
        sendData(ctx, { marked, unread_count: await countUnread(db, userId) });
      },
    }),
    defineRoute({
      ...base,
      scope: 'read:profile',
      method: 'get',
      path: '/v1/notifications/preferences',
      operationId: 'getNotificationPreferences',
      permission: 'read',
      summary: 'Get notification preferences',
      description: 'Per notification type, whether it is made in-app and by email.',
      responses: { 200: { description: 'Preferences', schema: PreferencesEnvelope } },
      async handler(ctx) {
        const stored = await readPreferences(db, ctx.state.principal!.userId);
        assertThat(stored, 'not-found', 'Your user record no longer exists.');
        sendData(ctx, effectivePreferences(stored));
      },
    }),
    defineRoute({
      ...base,
      scope: 'write:profile',
      method: 'patch',
      path: '/v1/notifications/preferences',
      operationId: 'updateNotificationPreferences',
      permission: 'write',
      summary: 'Update notification preferences',
      description: 'Change any part of the preferences; merged per type.',
      body: PreferencesPatch,
      responses: { 200: { description: 'Preferences after the change', schema: PreferencesEnvelope } },
      async handler(ctx, { body }) {
        const merged = await mergePreferences(db, ctx.state.principal!.userId, body as Record<string, Record<string, boolean>>);
        sendData(ctx, effectivePreferences(merged));
      },
    }),
    defineRoute({
      ...base,
      scope: 'read:profile',
      method: 'get',
      path: '/v1/notifications/:id',
      operationId: 'getNotification',
      permission: 'read',
      summary: 'Get a notification',
      description: 'One of your notifications.',
      params: NotificationParams,
      responses: { 200: { description: 'The notification', schema: NotificationEnvelope } },
      async handler(ctx, { params }) {
        const row = await findNotification(db, ctx.state.principal!.userId, params.id);
        assertThat(row, 'not-found', `You have no notification ${params.id}.`);
        sendData(ctx, toNotification(row));
      },
    }),
  ];
}
