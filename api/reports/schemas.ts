// Shapes of reports on the wire: what a user files, and the report as they and admins see it.
import { Type } from '@sinclair/typebox';
import { MODERATION_ACTIONS, REPORT_REASONS, REPORT_STATUSES, REPORT_TARGET_TYPES } from '../../core/vocabulary.ts';
import { Meta } from '../http/envelopes.ts';

const literals = <T extends string>(values: readonly T[]) => Type.Union(values.map((value) => Type.Literal(value)));

export const ReportTargetType = literals(REPORT_TARGET_TYPES);
export const ReportStatus = literals(REPORT_STATUSES);
export const ModerationActionName = literals(MODERATION_ACTIONS);

export const ReportCreate = Type.Object(
  {
    target_type: ReportTargetType,
    target_id: Type.String({ format: 'uuid' }),
    reason: literals(REPORT_REASONS),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

export const Report = Type.Object({
  id: Type.String({ format: 'uuid' }),
  reporter_id: Nullable(Type.String({ format: 'uuid', description: 'Null once the reporter deleted their account' })),
  target_type: ReportTargetType,
  target_id: Type.String({ format: 'uuid' }),
  reason: Type.String(),
  description: Nullable(Type.String()),
  status: ReportStatus,
  action: Nullable(Type.String({ description: 'The reviewer’s action, once resolved or dismissed.' })),
  resolution_note: Nullable(Type.String()),
  resolved_by: Nullable(Type.String({ format: 'uuid' })),
  resolved_at: Nullable(Type.String({ format: 'date-time' })),
  created_at: Type.String({ format: 'date-time' }),
});

export const ReportEnvelope = Type.Object({ data: Report, meta: Meta });
