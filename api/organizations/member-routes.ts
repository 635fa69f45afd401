// /v1/organizations/{org_id}/members: list (members), add (owner or admin, within the tier's member
// limit: 402 beyond it), change a role, remove (the owner never; anyone may leave), transfer ownership.
// Every change needs a person: an organization key gets 403 (core/organizations/roles.ts assertPerson).
import { Type } from '@sinclair/typebox';
import type { DatabasePool } from 'slonik';
import { createCursorCodec } from '../../core/pagination/keyset.ts';
import { addMember, changeRole, listMembers, removeMember, transferOwnership } from '../../core/organizations/members.ts';
import { sendData, type RallyContext } from '../http/context.ts';
import { sendKeysetList } from '../http/pagination.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { NOT_FOR_APPS } from '../../core/auth/scopes.ts';
import { MemberAdd, MemberListQuery, MemberUpdate, MembershipEnvelope, MembershipList, MembershipParams, OrgParams, toMembership } from './schemas.ts';

const cursor = createCursorCodec(Type.Tuple([Type.String({ format: 'date-time' }), Type.String({ format: 'uuid' })]), 'organization-members');
const NEEDS_PERSON = { description: 'Not allowed to your role, or an organization key: membership changes need a person' };
const callerOf = (ctx: RallyContext) => ({ principal: ctx.state.principal!, requestId: ctx.state.requestId });

export function createMemberRoutes(deps: { db: DatabasePool }): AnyRouteSpec[] {
  const { db } = deps;
  // No route here is open to an OAuth app's token (organization management is a person's or a key's).
  const base = { tag: 'Organizations', auth: 'required', scope: NOT_FOR_APPS } as const;
  return [
    defineRoute({
      ...base,
      method: 'get',
      path: '/v1/organizations/:org_id/members',
      operationId: 'listOrganizationMembers',
      permission: 'read',
      summary: "List an organization's members",
      description: 'Members of the organization, oldest first (members only).',
      params: OrgParams,
      query: MemberListQuery,
      responses: { 200: { description: 'A page of memberships', schema: MembershipList } },
      async handler(ctx, { params, query }) {
        await sendKeysetList(ctx, query, {
          cursor,
          rows: (after, limit) =>
            listMembers(db, params.org_id, ctx.state.principal!.userId, {
              role: query.role,
              after,
              limit,
            }),
          position: (row) => [row.created_at, row.id],
          present: toMembership,
        });
      },
    }),
    defineRoute({
      ...base,
      method: 'post',
      path: '/v1/organizations/:org_id/members',
      operationId: 'addOrganizationMember',
      permission: 'write',
      summary: 'Add an organization member',
      description: "Add a user as admin or member (owner or admin); 402 when the tier's member limit is reached.",
      params: OrgParams,
      body: MemberAdd,
      responses: {
        201: { description: 'The membership', schema: MembershipEnvelope },
        403: NEEDS_PERSON,
        402: { description: "The tier's member limit is reached (code member_limit_reached)" },
        409: { description: 'Already a member' },
      },
      async handler(ctx, { params, body }) {
        const membership = await addMember(db, params.org_id, callerOf(ctx), { userId: body.user_id, role: body.role });
        ctx.set('Location', `/v1/organizations/${params.org_id}/members/${membership.id}`);
        sendData(ctx, toMembership(membership), 201);
      },
    }),
    defineRoute({
      ...base,
      method: 'patch',
      path: '/v1/organizations/:org_id/members/:membership_id',
      operationId: 'updateOrganizationMember',
      permission: 'write',
      summary: "Change a member's role",
      description: "Change a member's role (owner or admin); the owner's role changes only by transfer.",
      params: MembershipParams,
      body: MemberUpdate,
      responses: { 200: { description: 'The membership', schema: MembershipEnvelope }, 403: NEEDS_PERSON, 409: { description: 'The target is the owner' } },
      async handler(ctx, { params, body }) {
        sendData(ctx, toMembership(await changeRole(db, params.org_id, callerOf(ctx), params.membership_id, body.role)));
      },
    }),
    defineRoute({
      ...base,
      method: 'delete',
      path: '/v1/organizations/:org_id/members/:membership_id',
      operationId: 'removeOrganizationMember',
      permission: 'write',
      summary: 'Remove an organization member',
      description: 'Remove a member (owner or admin), or leave (any member); the sole owner cannot be removed.',
      params: MembershipParams,
      responses: { 204: { description: 'Removed' }, 403: NEEDS_PERSON, 409: { description: 'The target is the sole owner' } },
      async handler(ctx, { params }) {
        await removeMember(db, params.org_id, callerOf(ctx), params.membership_id);
        ctx.status = 204;
      },
    }),
    defineRoute({
      ...base,
      method: 'post',
      path: '/v1/organizations/:org_id/members/:membership_id/transfer-ownership',
      operationId: 'transferOrganizationOwnership',
      permission: 'destroy',
      summary: 'Transfer organization ownership',
      description: 'Make an admin member the owner (current owner only); you become an admin.',
      params: MembershipParams,
      responses: {
        200: { description: "The new owner's membership", schema: MembershipEnvelope },
        403: NEEDS_PERSON,
        409: { description: 'The target is not an admin' },
      },
      async handler(ctx, { params }) {
        sendData(ctx, toMembership(await transferOwnership(db, params.org_id, callerOf(ctx), params.membership_id)));
      },
    }),
  ];
}
