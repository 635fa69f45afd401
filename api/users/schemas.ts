// Shapes of users as the API shows them, and the profile update.
import { Type } from '@sinclair/typebox';
import type { UserRow } from '../../core/users/queries.ts';

import { Meta } from '../http/envelopes.ts';

// Only web links: a javascript:, data: or file: URI would run or leak in whatever shows the image.
const WEB_URL_PATTERN = '^[Hh][Tt][Tt][Pp][Ss]?://';

export const User = Type.Object({
  id: Type.String({ format: 'uuid' }),
  email: Type.String({ format: 'email' }),
  display_name: Type.String(),
  slug: Type.String(),
  bio: Type.Union([Type.String(), Type.Null()]),
  avatar_url: Type.Union([Type.String(), Type.Null()]),
  role: Type.Union([Type.Literal('user'), Type.Literal('admin')]),
  email_verified: Type.Boolean(),
  phone_verified: Type.Boolean(),
  notification_prefs: Type.Record(Type.String(), Type.Unknown()),
  created_at: Type.String({ format: 'date-time' }),
});

export const PublicProfile = Type.Object({
  id: Type.String({ format: 'uuid' }),
  display_name: Type.String(),
  slug: Type.String(),
  bio: Type.Union([Type.String(), Type.Null()]),
  avatar_url: Type.Union([Type.String(), Type.Null()]),
  petition_count: Type.Integer(),
});

export const UserEnvelope = Type.Object({ data: User, meta: Meta });
export const PublicProfileEnvelope = Type.Object({ data: PublicProfile, meta: Meta });

export const UserUpdate = Type.Object(
  {
    display_name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    bio: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])),
    avatar_url: Type.Optional(
      Type.Union([Type.String({ format: 'uri', maxLength: 2048, pattern: WEB_URL_PATTERN, description: 'An http(s) URL.' }), Type.Null()]),
    ),
    notification_prefs: Type.Optional(Type.Record(Type.String({ maxLength: 64 }), Type.Unknown(), { maxProperties: 50 })),
  },
  { additionalProperties: false },
);

export const SlugParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 80, pattern: '^[a-z0-9-]+$' }) });

export function toUser(row: UserRow) {
  return {
    id: row.id,
    email: row.email,
    display_name: row.display_name,
    slug: row.slug,
    bio: row.bio,
    avatar_url: row.avatar_url,
    role: row.role,
    email_verified: row.email_verified,
    phone_verified: row.phone_verified,
    notification_prefs: row.notification_prefs,
    created_at: row.created_at,
  };
}

export function toPublicProfile(row: Pick<UserRow, 'id' | 'display_name' | 'slug' | 'bio' | 'avatar_url' | 'petition_count'>) {
  return { id: row.id, display_name: row.display_name, slug: row.slug, bio: row.bio, avatar_url: row.avatar_url, petition_count: row.petition_count };
}

/** An account deletion as its status resource shows it (issue 46). */
export const AccountDeletionStatus = Type.Object(
  {
    user_id: Type.String({ format: 'uuid' }),
    workflow_id: Type.String({ description: 'The accountDeletion workflow: `account-deletion-<user id>`' }),
    status: Type.Union([Type.Literal('running'), Type.Literal('completed'), Type.Literal('failed')]),
    requested_at: Type.String({ format: 'date-time' }),
    completed_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { additionalProperties: false },
);
export const AccountDeletionStatusEnvelope = Type.Object({ data: AccountDeletionStatus, meta: Meta });
