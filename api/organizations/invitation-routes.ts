// Invitations by email: an owner or admin invites an address with a role; the email carries a
// single-use token that the invitee accepts while logged in as the invited address. The
// organizationInvitation workflow reminds once and expires the invitation after RALLY_INVITATION_TTL.
import { Type } from '@sinclair/typebox';
import { acceptInvitation, inviteByEmail, type InvitationDependencies, type InvitationRow } from '../../core/organizations/invitations.ts';
import { sendData } from '../http/context.ts';
import { Meta } from '../http/envelopes.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { NOT_FOR_APPS } from '../../core/auth/scopes.ts';
import { MembershipEnvelope, OrgParams, toMembership } from './schemas.ts';

const InvitationCreate = Type.Object(
  { email: Type.String({ format: 'email', minLength: 3, maxLength: 320 }), role: Type.Union([Type.Literal('admin'), Type.Literal('member')]) },
  { additionalProperties: false },
);
const Invitation = Type.Object({
  id: Type.String({ format: 'uuid' }),
  organization_id: Type.String({ format: 'uuid' }),
  email: Type.String(),
  role: Type.Union([Type.Literal('admin'), Type.Literal('member')]),
  status: Type.Union([Type.Literal('pending'), Type.Literal('sent'), Type.Literal('accepted'), Type.Literal('expired')]),
  created_at: Type.String({ format: 'date-time' }),
  expires_at: Type.String({ format: 'date-time' }),
});
const TokenParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 128, description: 'The token from the invitation email.' }) });

function toInvitation(row: InvitationRow) {
  const status = row.accepted_at ? 'accepted' : row.expired_at ? 'expired' : row.sent_at ? 'sent' : 'pending';
  return { id: row.id, organization_id: row.org_id, email: row.email, role: row.role, status, created_at: row.created_at, expires_at: row.expires_at };
}

export function createInvitationRoutes(deps: InvitationDependencies): AnyRouteSpec[] {
  const base = { tag: 'Organizations', auth: 'required' } as const;
  return [
    defineRoute({
      ...base,
      scope: NOT_FOR_APPS,
      method: 'post',
      path: '/v1/organizations/:org_id/invitations',
      operationId: 'inviteToOrganization',
      permission: 'write',
      summary: 'Invite someone to an organization',
      description: 'Invite an email address as admin or member (owner or admin); the token goes out by email, valid RALLY_INVITATION_TTL.',
      params: OrgParams,
      body: InvitationCreate,
      responses: {
        201: { description: 'The invitation (never its token)', schema: Type.Object({ data: Invitation, meta: Meta }) },
        403: { description: 'Not an owner or admin, or an organization key: membership changes need a person' },
        409: { description: 'Already a member, or an open invitation exists' },
      },
      async handler(ctx, { params, body }) {
        const invitation = await inviteByEmail(deps, params.org_id, ctx.state.principal!, { email: body.email, role: body.role });
        sendData(ctx, toInvitation(invitation), 201);
      },
    }),
    defineRoute({
      ...base,
      scope: NOT_FOR_APPS,
      method: 'post',
      path: '/v1/invitations/:token/accept',
      operationId: 'acceptOrganizationInvitation',
      permission: 'write',
      summary: 'Accept an organization invitation',
      description: "Accept an invitation: you become a member with the invited role, within the tier's member limit.",
      params: TokenParams,
      responses: {
        201: { description: 'Your membership', schema: MembershipEnvelope },
        402: { description: "The tier's member limit is reached" },
        403: {
          description:
            'invitation_email_mismatch: you are not the invited address; email_not_verified: your address is not ' +
            'verified yet (the invitation stays open); or an organization key',
        },
        409: { description: 'Already used, or you are already a member' },
        410: { description: 'Expired' },
      },
      async handler(ctx, { params }) {
        sendData(ctx, toMembership(await acceptInvitation(deps, params.token, ctx.state.principal!)), 201);
      },
    }),
  ];
}
