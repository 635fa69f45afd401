// What the organizationInvitation workflow does: issue and email the token, remind once, expire.
// The raw token exists only inside sendOrganizationInvitation, between its creation and the email:
// it is never returned, logged or stored (only its SHA-256 is).
import type { DatabasePool } from 'slonik';
import {
  expireInvitation,
  findInvitationForEmail,
  markInvitationReminded,
  markInvitationSent,
  storeInvitationToken,
  type InvitationForEmail,
} from '../core/organizations/invitation-delivery.ts';
import { invitationAcceptUrl, invitationToken } from '../core/organizations/invitations.ts';
import type { Config } from '../platform/config.ts';
import { createMailer, type Mailer, type MailMessage } from '../platform/mailer.ts';

export type InvitationActivityDependencies = { db: DatabasePool; mailer: Mailer; publicUrl: string; encryptionKey: string };

const formatDeadline = (iso: string) => new Date(iso).toUTCString();

function invitationEmail(invitation: InvitationForEmail, link: string): MailMessage {
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

function reminderEmail(invitation: InvitationForEmail): MailMessage {
  return {
    to: invitation.email,
    subject: `Reminder: your invitation to ${invitation.org_name}`,
    text: [
      `Your invitation to join "${invitation.org_name}" on Rally is still open.`,
      `The link in our earlier email, "You are invited to join ${invitation.org_name} on Rally", works until ${formatDeadline(invitation.expires_at)}.`,
    ].join('\n'),
  };
}

export function createInvitationActivities({ db, mailer, publicUrl, encryptionKey }: InvitationActivityDependencies) {
  const find = (invitationId: string) => findInvitationForEmail(db, invitationId);

  return {
    /** Issues the token and emails it; once sent, a retry changes nothing. False when the invitation is gone. */
    async sendOrganizationInvitation({ invitationId }: { invitationId: string }): Promise<boolean> {
      const invitation = await find(invitationId);
      if (!invitation) return false;
      if (invitation.sent_at) return true;
      // The same token on a retry: a crash after the email left but before it was marked sent must
      // not send a second link that makes the first one dead.
      const token = invitationToken(encryptionKey, invitationId);
      await storeInvitationToken(db, invitationId, token.hash);
      await mailer.send(invitationEmail(invitation, invitationAcceptUrl(publicUrl, token.raw)));
      await markInvitationSent(db, invitationId);
      return true;
    },

    /** One reminder, at most, and only for an invitation still open. */
    async sendInvitationReminder({ invitationId }: { invitationId: string }): Promise<boolean> {
      const invitation = await find(invitationId);
      if (!invitation || invitation.reminded_at || invitation.accepted_at || invitation.expired_at) return false;
      await mailer.send(reminderEmail(invitation));
      await markInvitationReminded(db, invitationId);
      return true;
    },

    /** Marks the invitation expired; false when it was accepted first (or is gone). */
    expireOrganizationInvitation({ invitationId }: { invitationId: string }): Promise<boolean> {
      return expireInvitation(db, invitationId);
    },
  };
}

export type InvitationActivities = ReturnType<typeof createInvitationActivities>;

export function invitationDependencies(db: DatabasePool, config: Config): InvitationActivityDependencies {
  return { db, mailer: createMailer(config.mail), publicUrl: config.publicUrl, encryptionKey: config.encryptionKey };
}
