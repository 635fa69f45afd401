// Invitations by email. Creating one commits the row together with the start of its workflow (org-invite-<id>), which emails the single-use token, reminds once
// and expires it. Accepting creates the membership through the tier check, under the organization's row lock. The token alone is not enough (an email is easily
// forwarded): only the user whose email is the invited address may accept it, and only a person, never an organization key, may invite or accept.
import { createHash, createHmac } from 'node:crypto';
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { holdUntilCommit } from '../../db/commit-barrier.ts';
import { sql } from '../../db/sql.ts';
import type { Principal } from '../auth/principal.ts';
import { Conflict, Forbidden, Gone, NotFound } from '../errors/domain-error.ts';
import { organizationInvitationBarrier } from './invitation-delivery.ts';
import { addWithinTier } from './members.ts';
import { lockOrganization } from './queries.ts';
import { ADMINS, assertOrganizationRole, assertPerson, noSuchOrganization } from './roles.ts';

/**
 * The invitation's workflow (started by orchestration/, once per invitation): it emails the token,
 * reminds once and expires it. A failed start is a 503; the acceptance signal is best effort, as a
 * workflow that misses it finds the invitation accepted at its deadline.
 */
export type InvitationWorkflows = {
  startInvitation(invitation: { invitationId: string; organizationId: string; issuedAt: string; expiresAt: string }): Promise<void>;
  invitationAccepted(invitationId: string): Promise<void>;
};

export type InvitationDependencies = { db: DatabasePool; workflows: InvitationWorkflows; invitationTtlMs: number };

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/**
 * The invitation's token: an HMAC of its id under the platform key (32 bytes, base64url), so an email
 * sent again after a worker crash carries the same link as the first; only its SHA-256 is stored.
 */
export function invitationToken(keyHex: string, invitationId: string): { raw: string; hash: Buffer } {
  const raw = createHmac('sha256', Buffer.from(keyHex, 'hex')).update(`rally-organization-invitation:${invitationId}`).digest('base64url');
  return { raw, hash: hashInvitationToken(raw) };
}

const hashInvitationToken = (raw: string) => createHash('sha256').update(raw, 'utf8').digest();

export const invitationAcceptUrl = (publicUrl: string, raw: string) => `${publicUrl}/v1/invitations/${raw}/accept`;

export const InvitationRow = z.object({
  id: z.string(),
  org_id: z.string(),
  email: z.string(),
  role: z.enum(['admin', 'member']),
  created_at: z.string(),
  expires_at: z.string(),
  sent_at: z.string().nullable(),
  accepted_at: z.string().nullable(),
  expired_at: z.string().nullable(),
});
export type InvitationRow = z.infer<typeof InvitationRow>;
const COLUMNS = sql.fragment`id, org_id, email, role, created_at, expires_at, sent_at, accepted_at, expired_at`;

export async function inviteByEmail(deps: InvitationDependencies, orgId: string, caller: Principal, input: { email: string; role: 'admin' | 'member' }) {
  // An invitation makes a member when accepted: a membership change, so a person's.
  const callerId = assertPerson(caller, 'invite people');
  return deps.db.transaction(async (tx) => {
    // Locked, as every write under an organization is: its deletion waits, or has happened (404).
    if (!(await lockOrganization(tx, orgId))) throw noSuchOrganization(orgId);
    await assertOrganizationRole(tx, orgId, callerId, ADMINS, 'invite people');
    const member = await tx.maybeOneFirst(sql.type(z.object({ id: z.string() }))`
      SELECT m.id FROM organization_members m JOIN users u ON u.id = m.user_id WHERE m.org_id = ${orgId} AND lower(u.email) = lower(${input.email}) LIMIT 1
    `);
    if (member) throw new Conflict('Someone with this email is already a member of the organization.', { code: 'already_member' });
    const invitation = await tx.one(sql.type(InvitationRow)`
      INSERT INTO organization_invitations (org_id, email, role, invited_by, expires_at)
      VALUES (${orgId}, ${input.email}, ${input.role}, ${callerId}, now() + make_interval(secs => ${deps.invitationTtlMs / 1000}))
      RETURNING ${COLUMNS}
    `);
    // Last, so a failed start rolls the invitation back instead of leaving one nobody sends.
    await holdUntilCommit(tx, organizationInvitationBarrier(invitation.id));
    await deps.workflows.startInvitation({
      invitationId: invitation.id,
      organizationId: orgId,
      issuedAt: invitation.created_at,
      expiresAt: invitation.expires_at,
    });
    return invitation;
  });
}

/**
 * Single use: 404 unknown token, 410 expired, 409 already used or already a member, 402 tier full,
 * 403 invitation_email_mismatch for another user than the invited address, 403 email_not_verified while
 * the invitee's address is unproven (the invitation stays open either way).
 */
export async function acceptInvitation(deps: InvitationDependencies, rawToken: string, caller: Principal) {
  const userId = assertPerson(caller, 'accept invitations');
  if (!TOKEN_PATTERN.test(rawToken)) throw new NotFound('There is no such invitation.');
  const membership = await deps.db.transaction(async (tx) => {
    const invitation = await tx.maybeOne(sql.type(InvitationRow)`
      SELECT ${COLUMNS} FROM organization_invitations WHERE token_hash = ${sql.binary(hashInvitationToken(rawToken))} FOR UPDATE
    `);
    if (!invitation) throw new NotFound('There is no such invitation.');
    if (invitation.accepted_at) throw new Conflict('This invitation was already used.', { code: 'invitation_used' });
    if (invitation.expired_at || Date.parse(invitation.expires_at) <= Date.now())
      throw new Gone('This invitation has expired; ask for a new one.', { code: 'invitation_expired' });
    const account = await tx.one(
      sql.type(z.object({ email: z.string(), email_verified: z.boolean() }))`SELECT email, email_verified FROM users WHERE id = ${userId}`,
    );
    if (account.email.toLowerCase() !== invitation.email.toLowerCase()) {
      throw new Forbidden('This invitation was sent to another email address; log in as that address to accept it.', { code: 'invitation_email_mismatch' });
    }
    // The address must be proven, or an account that merely claims it (an identity provider that
    // does not verify) would take the invitation.
    if (!account.email_verified) {
      throw new Forbidden('Verify your email address before accepting an invitation sent to it.', { code: 'email_not_verified' });
    }
    const org = await lockOrganization(tx, invitation.org_id);
    if (!org) throw new NotFound('There is no such invitation.');
    const created = await addWithinTier(tx, org.id, org.tier, userId, invitation.role);
    await tx.query(sql.typeAlias('void')`UPDATE organization_invitations SET accepted_at = now(), accepted_by = ${userId} WHERE id = ${invitation.id}`);
    return { created, invitationId: invitation.id };
  });
  await deps.workflows.invitationAccepted(membership.invitationId);
  return membership.created;
}
