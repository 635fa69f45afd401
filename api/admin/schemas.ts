// Shapes of the admin API: query filters, action bodies and the admin views of users, warnings,
// audit entries, metrics and signature invalidations.
import { Type } from '@sinclair/typebox';
import { AUDIT_ACTIONS } from '../../core/vocabulary.ts';
import { Meta } from '../http/envelopes.ts';
import { CursorQuery, LimitQuery, PaginationSchema } from '../http/pagination.ts';
import { ModerationActionName, Report, ReportStatus, ReportTargetType } from '../reports/schemas.ts';

const Uuid = Type.String({ format: 'uuid' });
const DateTime = Type.String({ format: 'date-time' });
const NullableString = Type.Union([Type.String(), Type.Null()]);
const NullableDateTime = Type.Union([DateTime, Type.Null()]);

export const IdParams = Type.Object({ id: Uuid });
export const SignatureParams = Type.Object({ id: Uuid, signature_id: Uuid });

export const ReportListQuery = Type.Object(
  { status: Type.Optional(ReportStatus), target_type: Type.Optional(ReportTargetType), cursor: Type.Optional(CursorQuery), limit: LimitQuery() },
  { additionalProperties: false },
);
export const ReportList = Type.Object({ data: Type.Array(Report), pagination: PaginationSchema, meta: Meta });
export const ReportActionBody = Type.Object(
  { action: ModerationActionName, note: Type.Optional(Type.String({ maxLength: 2000 })) },
  { additionalProperties: false },
);
export const ReportActionResult = Type.Object({ data: Report, meta: Meta });

export const AdminUser = Type.Object({
  id: Uuid,
  email: Type.String(),
  display_name: Type.String(),
  slug: Type.String(),
  role: Type.Union([Type.Literal('user'), Type.Literal('admin')]),
  suspended: Type.Boolean(),
  suspended_at: NullableDateTime,
  suspended_until: NullableDateTime,
  suspension_reason: NullableString,
  flagged_for_review: Type.Boolean(),
  flagged_for_review_at: NullableDateTime,
  email_verified: Type.Boolean(),
  petition_count: Type.Integer(),
  created_at: DateTime,
});
export const AdminUserEnvelope = Type.Object({ data: AdminUser, meta: Meta });
export const AdminUserList = Type.Object({ data: Type.Array(AdminUser), pagination: PaginationSchema, meta: Meta });
export const UserSearchQuery = Type.Object(
  {
    email: Type.Optional(Type.String({ minLength: 1, maxLength: 320, description: 'An email or its beginning; case-insensitive.' })),
    role: Type.Optional(Type.Union([Type.Literal('user'), Type.Literal('admin')])),
    suspended: Type.Optional(Type.Boolean()),
    cursor: Type.Optional(CursorQuery),
    limit: LimitQuery(),
  },
  { additionalProperties: false },
);
export const SuspendBody = Type.Object(
  // The spec's request has no body: a suspension needs no stated reason, and without `until` it lasts until lifted.
  {
    reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    until: Type.Optional(Type.String({ format: 'date-time', description: 'When the suspension ends by itself; none: until lifted.' })),
  },
  { additionalProperties: false },
);

export const Warning = Type.Object({
  id: Uuid,
  user_id: Uuid,
  issued_by: Uuid,
  reason: Type.String(),
  message: Type.String(),
  emailed_at: NullableDateTime,
  created_at: DateTime,
});
export const WarningCreate = Type.Object(
  { user_id: Uuid, reason: Type.String({ minLength: 1, maxLength: 200 }), message: Type.String({ minLength: 1, maxLength: 5000 }) },
  { additionalProperties: false },
);
export const WarningEnvelope = Type.Object({ data: Warning, meta: Meta });
export const WarningList = Type.Object({ data: Type.Array(Warning), pagination: PaginationSchema, meta: Meta });
export const WarningListQuery = Type.Object(
  { user_id: Type.Optional(Uuid), cursor: Type.Optional(CursorQuery), limit: LimitQuery() },
  { additionalProperties: false },
);

export const AuditEntry = Type.Object({
  id: Uuid,
  actor_type: Type.String(),
  actor_id: Type.Union([Uuid, Type.Null()]),
  credential: Type.String(),
  action: Type.String(),
  target_type: Type.String(),
  target_id: Type.String(),
  before: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  after: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  request_id: NullableString,
  created_at: DateTime,
});
export const AuditList = Type.Object({ data: Type.Array(AuditEntry), pagination: PaginationSchema, meta: Meta });
export const AuditQuery = Type.Object(
  {
    actor_id: Type.Optional(Uuid),
    action: Type.Optional(Type.Union(AUDIT_ACTIONS.map((action) => Type.Literal(action)))),
    target_type: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
    since: Type.Optional(DateTime),
    cursor: Type.Optional(CursorQuery),
    limit: LimitQuery(),
  },
  { additionalProperties: false },
);

export const Metrics = Type.Object({
  users: Type.Object({ total: Type.Integer(), suspended: Type.Integer(), admins: Type.Integer() }),
  petitions_by_status: Type.Record(Type.String(), Type.Integer()),
  signatures: Type.Object({ today: Type.Integer(), last_7_days: Type.Integer(), total: Type.Integer() }),
  open_reports: Type.Integer(),
  webhook_deliveries_failed_24h: Type.Integer(),
  workflows_running: Type.Union([Type.Record(Type.String(), Type.Integer()), Type.Null()], {
    description: 'Per workflow type; null when Temporal cannot be reached.',
  }),
});
export const MetricsEnvelope = Type.Object({ data: Metrics, meta: Meta });

export const InvalidationBody = Type.Object(
  {
    filter: Type.Object(
      {
        ip_block: Type.Optional(Type.String({ minLength: 2, maxLength: 64, description: 'An address or CIDR block: /16–/32 (IPv4), /56–/128 (IPv6).' })),
        network_hash: Type.Optional(
          Type.String({
            pattern: '^[0-9a-f]{64}$',
            examples: ['9f2c4e6a1b3d5f7081a2c3e4f5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e'],
            description: 'A network block as the flagged-crowds view names it (its keyed hash, never an address).',
          }),
        ),
        email_domain: Type.Optional(Type.String({ minLength: 1, maxLength: 253, pattern: '^[A-Za-z0-9.-]+$' })),
        flagged: Type.Optional(Type.Boolean({ description: 'true: only the signatures flagged past a signing threshold.' })),
        since: Type.Optional(DateTime),
        until: Type.Optional(DateTime),
      },
      { additionalProperties: false, minProperties: 1 },
    ),
    dry_run: Type.Boolean({ default: false }),
  },
  { additionalProperties: false },
);
export const Invalidation = Type.Object({
  id: Uuid,
  petition_id: Uuid,
  filter: Type.Record(Type.String(), Type.Unknown()),
  dry_run: Type.Boolean(),
  status: Type.String(),
  matched: Type.Integer(),
  signature_count_after: Type.Union([Type.Integer(), Type.Null()]),
  requested_by: Uuid,
  created_at: DateTime,
  finished_at: NullableDateTime,
});
export const InvalidationEnvelope = Type.Object({ data: Invalidation, meta: Meta });
