// Shapes of notifications and notification preferences on the wire.
import { Type } from '@sinclair/typebox';
import { CursorQuery, LimitQuery, PaginationSchema } from '../http/pagination.ts';
import { NOTIFICATION_TYPES } from '../../core/notifications/create.ts';
import type { NotificationRow } from '../../core/notifications/queries.ts';

import { Meta } from '../http/envelopes.ts';

export const Notification = Type.Object({
  id: Type.String({ format: 'uuid' }),
  type: Type.String({ description: `One of ${NOTIFICATION_TYPES.join(', ')}.` }),
  title: Type.String(),
  body: Type.String(),
  read: Type.Boolean(),
  data: Type.Record(Type.String(), Type.Unknown()),
  created_at: Type.String({ format: 'date-time' }),
});
const Counts = Type.Object({ total: Type.Integer(), unread: Type.Integer() });

export const Channels = Type.Object(
  {
    in_app: Type.Boolean({ description: 'Create the notification at all.' }),
    email: Type.Boolean({ description: 'Also by email (stored for the mail sender; in-app is what is honoured today).' }),
  },
  { additionalProperties: false },
);
export const ChannelsPatch = Type.Partial(Channels, { additionalProperties: false, minProperties: 1 });

export const Preferences = Type.Object(Object.fromEntries(NOTIFICATION_TYPES.map((type) => [type, Channels])), {
  description: 'Per notification type. Every type is on unless switched off.',
});
export const PreferencesPatch = Type.Object(Object.fromEntries(NOTIFICATION_TYPES.map((type) => [type, Type.Optional(ChannelsPatch)])), {
  additionalProperties: false,
  minProperties: 1,
  description: 'Any part of the preferences object; merged per type.',
});

export const NotificationEnvelope = Type.Object({ data: Notification, meta: Meta });
export const NotificationList = Type.Object({ data: Type.Array(Notification), pagination: PaginationSchema, counts: Counts, meta: Meta });
export const UnreadCountEnvelope = Type.Object({ data: Type.Object({ unread_count: Type.Integer() }), meta: Meta });
export const MarkReadResult = Type.Object({ data: Type.Object({ marked: Type.Integer(), unread_count: Type.Integer() }), meta: Meta });
export const PreferencesEnvelope = Type.Object({ data: Preferences, meta: Meta });

export const MarkReadRequest = Type.Object(
  {
    notification_ids: Type.Optional(Type.Array(Type.String({ format: 'uuid' }), { minItems: 1, maxItems: 100, uniqueItems: true })),
    mark_all: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export const NotificationParams = Type.Object({ id: Type.String({ format: 'uuid' }) });
export const NotificationListQuery = Type.Object(
  { unread_only: Type.Boolean({ default: false }), cursor: Type.Optional(CursorQuery), limit: LimitQuery() },
  { additionalProperties: false },
);

export function toNotification(row: NotificationRow) {
  return { id: row.id, type: row.type, title: row.title, body: row.body, read: row.read_at !== null, data: row.data, created_at: row.created_at };
}

/** Every known type with both channels, as stored or on by default. */
export function effectivePreferences(stored: Record<string, unknown>) {
  return Object.fromEntries(
    NOTIFICATION_TYPES.map((type) => {
      const saved = (stored[type] ?? {}) as { in_app?: unknown; email?: unknown };
      return [type, { in_app: saved.in_app !== false, email: saved.email !== false }];
    }),
  );
}
