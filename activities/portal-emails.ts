// The two emails a decision maker gets: the invitation carrying the portal link, and one reminder.
// The reminder has no link: Rally keeps only the token's hash, so it points back to the invitation.
import type { MailMessage } from '../platform/mailer.ts';

export type PortalInvitee = {
  name: string;
  title: string;
  email: string;
  petition_title: string;
  petition_slug: string;
  signature_count: number;
};

const formatDeadline = (iso: string) => new Date(iso).toUTCString();

export function invitationEmail(invitee: PortalInvitee, link: string, deadline: string, publicUrl: string): MailMessage {
  const signers = invitee.signature_count === 1 ? '1 person has' : `${invitee.signature_count} people have`;
  return {
    to: invitee.email,
    subject: `A petition asks for your response: ${invitee.petition_title}`,
    text: [
      `Dear ${invitee.name} (${invitee.title}),`,
      '',
      `${signers} signed the petition "${invitee.petition_title}", addressed to you:`,
      `${publicUrl}/p/${invitee.petition_slug}`,
      '',
      'You can read it and answer the signers, with no account needed, at this private link:',
      link,
      '',
      `The link works until ${formatDeadline(deadline)}. Your answer is shown on the petition once its creator publishes it.`,
      'Do not forward this email: anyone with the link can answer in your name.',
    ].join('\n'),
  };
}

export function reminderEmail(invitee: PortalInvitee, deadline: string): MailMessage {
  return {
    to: invitee.email,
    subject: `Reminder: your response to "${invitee.petition_title}"`,
    text: [
      `Dear ${invitee.name} (${invitee.title}),`,
      '',
      `The signers of "${invitee.petition_title}" are still waiting for your response.`,
      `The private link in our earlier email, "A petition asks for your response: ${invitee.petition_title}", works until ${formatDeadline(deadline)}.`,
    ].join('\n'),
  };
}
