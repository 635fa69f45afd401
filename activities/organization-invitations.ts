// What the organizationInvitation workflow does: issue and email the token, remind once, expire.
// The raw token exists only inside sendOrganizationInvitation, between its creation and the email:
// it is never returned, logged or stored (only its SHA-256 is).
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../db/sql.ts';
import { invitationAcceptUrl, newInvitationToken } from '../core/organizations/invitations.ts';
import type { Config } from '../platform/config.ts';
import { createMailer, type Mailer, type MailMessage } from '../platform/mailer.ts';

export type InvitationActivityDependencies = { db: DatabasePool; mailer: Mailer; publicUrl: string };

const Invitation = z.object({
  id: z.string(), email: z.string(), role: z.string(), org_name: z.string(), expires_at: z.string(),
  sent_at: z.string().nullable(), reminded_at: z.string().nullable(), accepted_at: z.string().nullable(), expired_at: z.string().nullable(),
});

const formatDeadline = (iso: string) => new Date(iso).toUTCString();

function invitationEmail(invitation: z.infer<typeof Invitation>, link: string): MailMessage {
  return {
    to: invitation.email,
    subject: `You are invited to join ${invitation.org_name} on Rally`,
    text: [
      `You are invited to join the organization "${invitation.org_name}" on Rally as ${invitation.role === 'admin' ? 'an admin' : 'a member'}.`,
      '',
      'Log in (or create an account), then accept the invitation with your access token:',
      `POST ${link}`,
      '',
      `The invitation works once, until ${formatDeadline(invitation.expires_at)}. If you did not expect it, ignore this email.`,
    ].join('\n'),
  };
}

function reminderEmail(invitation: z.infer<typeof Invitation>): MailMessage {
  return {
    to: invitation.email,
    subject: `Reminder: your invitation to ${invitation.org_name}`,
    text: [
      `Your invitation to join "${invitation.org_name}" on Rally is still open.`,
      `The link in our earlier email, "You are invited to join ${invitation.org_name} on Rally", works until ${formatDeadline(invitation.expires_at)}.`,
    ].join('\n'),
  };
}

export function createInvitationActivities({ db, mailer, publicUrl }: InvitationActivityDependencies) {
  const find = (invitationId: string) =>
    db.maybeOne(sql.type(Invitation)`
      SELECT i.id, i.email, i.role, o.name AS org_name, i.expires_at, i.sent_at, i.reminded_at, i.accepted_at, i.expired_at
      FROM organization_invitations i JOIN organizations o ON o.id = i.org_id
      WHERE i.id = ${invitationId}
    `);

  return {
    /** Issues the token and emails it; once sent, a retry changes nothing. False when the invitation is gone. */
    async sendOrganizationInvitation({ invitationId }: { invitationId: string }): Promise<boolean> {
      const invitation = await find(invitationId);
      if (!invitation) return false;
      if (invitation.sent_at) return true;
      const token = newInvitationToken();
      await db.query(sql.typeAlias('void')`UPDATE organization_invitations SET token_hash = ${sql.binary(token.hash)} WHERE id = ${invitationId} AND sent_at IS NULL`);
      await mailer.send(invitationEmail(invitation, invitationAcceptUrl(publicUrl, token.raw)));
      await db.query(sql.typeAlias('void')`UPDATE organization_invitations SET sent_at = now() WHERE id = ${invitationId}`);
      return true;
    },

    /** One reminder, at most, and only for an invitation still open. */
    async sendInvitationReminder({ invitationId }: { invitationId: string }): Promise<boolean> {
      const invitation = await find(invitationId);
      if (!invitation || invitation.reminded_at || invitation.accepted_at || invitation.expired_at) return false;
      await mailer.send(reminderEmail(invitation));
      await db.query(sql.typeAlias('void')`UPDATE organization_invitations SET reminded_at = now() WHERE id = ${invitationId}`);
      return true;
    },

    /** Marks the invitation expired; false when it was accepted first (or is gone). */
    async expireOrganizationInvitation({ invitationId }: { invitationId: string }): Promise<boolean> {
      const row = await db.maybeOne(sql.type(z.object({ id: z.string() }))`
        UPDATE organization_invitations SET expired_at = now()
        WHERE id = ${invitationId} AND accepted_at IS NULL AND expired_at IS NULL
        RETURNING id
      `);
      return row !== null;
    },
  };
}

export type InvitationActivities = ReturnType<typeof createInvitationActivities>;

export function invitationDependencies(db: DatabasePool, config: Config): InvitationActivityDependencies {
  return { db, mailer: createMailer(config.mail), publicUrl: config.publicUrl };
}
