// Deleting an account (issue 46): DELETE /v1/users/me by the person themselves after a fresh login,
// DELETE /v1/admin/users/{id} by an administrator with a reason, and the deletion's status resource.
// Both answer 202 with the status; the erasing is the accountDeletion workflow's.
import { Type } from '@sinclair/typebox';
import type { DatabasePool } from 'slonik';
import { auditContextOf } from '../../core/audit/audit-log.ts';
import { assertFreshLogin } from '../../core/auth/fresh-login.ts';
import { NOT_FOR_APPS } from '../../core/auth/scopes.ts';
import { NotFound } from '../../core/errors/domain-error.ts';
import { deletionStatus, requestAccountDeletion, type AccountDeletionWorkflows } from '../../core/account-deletion/request.ts';
import type { UserDirectory } from '../../core/users/directory.ts';
import { sendData, type RallyContext } from '../http/context.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { IdParams } from '../admin/schemas.ts';
import { AccountDeletionStatusEnvelope as DeletionStatusEnvelope } from './schemas.ts';

const DeleteMeBody = Type.Object(
  {
    close_petitions: Type.Optional(
      Type.Boolean({ description: 'Close your active petitions instead of leaving them published by "a former member" (default false)' }),
    ),
  },
  { additionalProperties: false },
);
const AdminDeletionBody = Type.Object(
  { reason: Type.String({ minLength: 1, maxLength: 500, description: 'Why; kept in the audit log' }) },
  { additionalProperties: false },
);

export function createAccountDeletionRoutes(deps: {
  db: DatabasePool;
  workflows: AccountDeletionWorkflows;
  users: Pick<UserDirectory, 'forget'>;
  sensitiveActionMaxAgeMs: number;
  accessTokenTtlMs: number;
}): AnyRouteSpec[] {
  const { db } = deps;

  async function answer(ctx: RallyContext, userId: string, location: string, status = 200) {
    const found = await deletionStatus(deps, userId);
    if (!found) throw new NotFound('No deletion of this account was asked for.');
    ctx.set('Location', location);
    sendData(ctx, found, status);
  }
  const accepted = { description: 'The deletion runs: its status (poll the Location)', schema: DeletionStatusEnvelope };

  return [
    defineRoute({
      method: 'delete',
      path: '/v1/users/me',
      operationId: 'deleteMe',
      tag: 'Users',
      auth: 'required',
      scope: NOT_FOR_APPS,
      permission: 'destroy',
      suspendedMayCall: true,
      summary: 'Delete your account',
      description:
        'Every login, key and app authorization ends at once; signatures stay counted but anonymous, ' +
        'comments become "[deleted]", petitions stay by "a former member" (or are closed first with `close_petitions`). ' +
        'A confirmation is emailed to your address when it completes.',
      body: DeleteMeBody,
      responses: {
        202: accepted,
        401: { description: '`reauthentication_required`: log in again (RALLY_SENSITIVE_ACTION_MAX_AGE) and retry' },
        409: { description: '`sole_owner`: transfer the organizations named first; `last_admin`: the last administrator' },
      },
      async handler(ctx, { body }) {
        const principal = ctx.state.principal!;
        await assertFreshLogin(db, principal, deps.sensitiveActionMaxAgeMs);
        await requestAccountDeletion(deps, {
          userId: principal.userId,
          audit: auditContextOf(principal, ctx.state.requestId),
          reason: null,
          keepTokenId: principal.tokenId,
          accessTokenTtlMs: deps.accessTokenTtlMs,
          closePetitions: body.close_petitions ?? false,
        });
        deps.users.forget(principal.userId);
        await answer(ctx, principal.userId, '/v1/users/me/deletion', 202);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/users/me/deletion',
      operationId: 'getMyDeletion',
      tag: 'Users',
      auth: 'required',
      scope: NOT_FOR_APPS,
      permission: 'read',
      suspendedMayCall: true,
      summary: "Get your account's deletion",
      description: "Your account's deletion while it runs (with the access token that asked for it).",
      responses: { 200: { description: 'The deletion', schema: DeletionStatusEnvelope }, 404: { description: 'No deletion was asked for' } },
      async handler(ctx) {
        await answer(ctx, ctx.state.principal!.userId, '/v1/users/me/deletion');
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/admin/users/:id',
      operationId: 'adminDeleteUser',
      tag: 'Admin',
      auth: 'required',
      scope: NOT_FOR_APPS,
      permission: 'admin',
      summary: "Delete a user's account",
      description: "Delete someone's account, as DELETE /v1/users/me does; the reason goes to the audit log.",
      params: IdParams,
      body: AdminDeletionBody,
      responses: {
        202: accepted,
        404: { description: 'No such user' },
        409: {
          description:
            '`sole_owner`: they are the only owner of the organizations named; `last_admin`: the last administrator; ' +
            "`organization_account`: an organization's own key-holding account",
        },
      },
      async handler(ctx, { params, body }) {
        // Their own account through this door needs what DELETE /v1/users/me needs.
        if (params.id === ctx.state.principal!.userId) await assertFreshLogin(db, ctx.state.principal!, deps.sensitiveActionMaxAgeMs);
        await requestAccountDeletion(deps, {
          userId: params.id,
          audit: auditContextOf(ctx.state.principal!, ctx.state.requestId),
          reason: body.reason,
          accessTokenTtlMs: deps.accessTokenTtlMs,
        });
        deps.users.forget(params.id);
        await answer(ctx, params.id, `/v1/admin/users/${params.id}/deletion`, 202);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/admin/users/:id/deletion',
      operationId: 'adminGetUserDeletion',
      tag: 'Admin',
      auth: 'required',
      scope: NOT_FOR_APPS,
      permission: 'admin',
      summary: "Get a user's account deletion",
      description: "An account's deletion, while it runs and after (by user id).",
      params: IdParams,
      responses: { 200: { description: 'The deletion', schema: DeletionStatusEnvelope }, 404: { description: 'No deletion was asked for' } },
      async handler(ctx, { params }) {
        await answer(ctx, params.id, `/v1/admin/users/${params.id}/deletion`);
      },
    }),
  ];
}
