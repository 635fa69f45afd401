// Users for administrators: search, suspend (optionally until a time, lifted by a workflow timer),
// unsuspend, and warnings (a notification at once and an email through a workflow).
import { Type } from '@sinclair/typebox';
import type { DatabasePool } from 'slonik';
import { auditContextOf } from '../../core/audit/audit-log.ts';
import { ensure, invalidField, NotFound } from '../../core/errors/domain-error.ts';
import { createWarning, listWarnings, presentWarning, type WarningWorkflows } from '../../core/moderation/warnings.ts';
import { createCursorCodec } from '../../core/pagination/keyset.ts';
import { presentAdminUser, searchUsers } from '../../core/users/admin-queries.ts';
import { scheduleSuspensionEnd, suspendUser, unsuspendUser, type SuspensionWorkflows } from '../../core/users/suspension.ts';
import { findAdminUser } from '../../core/users/admin-queries.ts';
import type { UserDirectory } from '../../core/users/directory.ts';
import { sendData } from '../http/context.ts';
import { sendKeysetList } from '../http/pagination.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { NOT_FOR_APPS } from '../../core/auth/scopes.ts';
import {
  AdminUserEnvelope,
  AdminUserList,
  IdParams,
  SuspendBody,
  UserSearchQuery,
  WarningCreate,
  WarningEnvelope,
  WarningList,
  WarningListQuery,
} from './schemas.ts';

const userCursor = createCursorCodec(Type.Tuple([Type.String({ format: 'date-time' }), Type.String({ format: 'uuid' })]), 'admin-users');
const warningCursor = createCursorCodec(Type.Tuple([Type.String({ format: 'date-time' }), Type.String({ format: 'uuid' })]), 'admin-warnings');
// Every route here: an administrator's own login, never an app acting for them.
const ADMIN_ONLY = { tag: 'Admin', auth: 'required', scope: NOT_FOR_APPS, permission: 'admin' } as const;

export function createAdminUserRoutes(deps: {
  db: DatabasePool;
  workflows: SuspensionWorkflows & WarningWorkflows;
  users: Pick<UserDirectory, 'forget'>;
}): AnyRouteSpec[] {
  const { db } = deps;
  return [
    defineRoute({
      method: 'get',
      path: '/v1/admin/users',
      operationId: 'adminSearchUsers',
      ...ADMIN_ONLY,
      summary: 'Search users',
      description: 'Users by email (prefix or exact, case-insensitive), role and suspension, newest first.',
      query: UserSearchQuery,
      responses: { 200: { description: 'A page of users', schema: AdminUserList } },
      async handler(ctx, { query }) {
        await sendKeysetList(ctx, query, {
          cursor: userCursor,
          rows: (after, limit) => searchUsers(db, { email: query.email, role: query.role, suspended: query.suspended }, after, limit),
          position: (row) => [row.position_at, row.id],
          present: presentAdminUser,
        });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/admin/users/:id/suspend',
      operationId: 'adminSuspendUser',
      ...ADMIN_ONLY,
      summary: 'Suspend a user',
      description: 'Suspend a user: their tokens and API keys are refused with 403 at once; with `until`, the suspension ends by itself.',
      params: IdParams,
      body: SuspendBody,
      responses: {
        200: { description: 'The user', schema: AdminUserEnvelope },
        404: { description: 'No such user' },
        409: { description: 'Yourself, or the last active administrator' },
      },
      async handler(ctx, { params, body }) {
        if (body.until !== undefined && Date.parse(body.until) <= Date.now()) throw invalidField('until', 'not_in_future', 'must be in the future');
        const user = await suspendUser(
          db,
          { userId: params.id, reason: body.reason ?? null, until: body.until ?? null },
          auditContextOf(ctx.state.principal!, ctx.state.requestId),
        );
        deps.users.forget(user.id);
        await scheduleSuspensionEnd(deps, user);
        sendData(ctx, presentAdminUser(user));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/admin/users/:id/unsuspend',
      operationId: 'adminUnsuspendUser',
      ...ADMIN_ONLY,
      summary: 'Lift a suspension',
      description: 'Lift a suspension (a user who is not suspended is answered as is).',
      params: IdParams,
      responses: { 200: { description: 'The user', schema: AdminUserEnvelope }, 404: { description: 'No such user' } },
      async handler(ctx, { params }) {
        const lifted = await unsuspendUser(db, params.id, auditContextOf(ctx.state.principal!, ctx.state.requestId));
        deps.users.forget(params.id);
        const user = lifted ?? (await findAdminUser(db, params.id));
        ensure(user, NotFound, 'There is no such user.');
        sendData(ctx, presentAdminUser(user));
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/admin/warnings',
      operationId: 'adminListWarnings',
      ...ADMIN_ONLY,
      summary: 'List warnings',
      description: 'Warnings sent, newest first (all, or one user’s).',
      query: WarningListQuery,
      responses: { 200: { description: 'A page of warnings', schema: WarningList } },
      async handler(ctx, { query }) {
        await sendKeysetList(ctx, query, {
          cursor: warningCursor,
          rows: (after, limit) => listWarnings(db, query.user_id, after, limit),
          position: (row) => [row.position_at, row.id],
          present: presentWarning,
        });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/admin/warnings',
      operationId: 'adminWarnUser',
      ...ADMIN_ONLY,
      summary: 'Warn a user',
      description: 'Warn a user: an in-app notification at once, and an email.',
      body: WarningCreate,
      responses: { 201: { description: 'The warning', schema: WarningEnvelope }, 404: { description: 'No such user' } },
      async handler(ctx, { body }) {
        const principal = ctx.state.principal!;
        const warning = await db.transaction((tx) =>
          createWarning(
            tx,
            { userId: body.user_id, issuedBy: principal.userId, reason: body.reason, message: body.message },
            auditContextOf(principal, ctx.state.requestId),
          ),
        );
        await deps.workflows.emailWarning(warning.id, warning.user_id);
        sendData(ctx, presentWarning(warning), 201);
      },
    }),
  ];
}
