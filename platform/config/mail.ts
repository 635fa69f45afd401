// Outgoing email: an SMTP server, or .eml files in a folder; and how notifications gather.

import { Type, type StaticDecode } from '@sinclair/typebox';
import type { Config } from './types.ts';
import { duration, integer, text, url } from './variables.ts';

export const mailVariables = {
  SMTP_URL: Type.Optional(
    url('smtp-url', {
      description: '`smtp://` or `smtps://` server for outgoing email. When unset, messages are written as `.eml` files (see `RALLY_MAIL_DIR`).',
    }),
  ),
  RALLY_MAIL_DIR: Type.Optional(text({ defaultText: '`$RALLY_DATA_DIR/mail`', description: 'folder for `.eml` files when `SMTP_URL` is unset' })),
  RALLY_MAIL_FROM: Type.Optional(text({ defaultText: '`Rally <no-reply@<host of PUBLIC_URL>>`', description: 'sender of outgoing email' })),
  RALLY_NOTIFICATION_EMAIL_WINDOW: duration('RALLY_NOTIFICATION_EMAIL_WINDOW', {
    default: '5m',
    description: 'notification emails gather this long before going out; more than 3 in one window become one digest',
  }),
  RALLY_SIGNATURE_CONFIRMATION_TTL: duration('RALLY_SIGNATURE_CONFIRMATION_TTL', {
    default: '7d',
    description: 'a guest signature not confirmed from its email within this expires; one reminder goes out halfway',
  }),
  RALLY_GUEST_EMAILS_PER_ADDRESS_PER_DAY: integer(10_000, {
    default: 20,
    description:
      'confirmation emails guest forms may have sent to one address (as normalised for signatures) per day, beside 10 per hour; ' +
      "past either, a form mails nothing and the address's open guest signatures get no reminder",
  }),
};

type Values = StaticDecode<ReturnType<typeof Type.Object<typeof mailVariables>>>;

export function mailSettings(values: Values, dataDir: string, publicUrl: string) {
  return {
    mail: Object.freeze({
      smtpUrl: values.SMTP_URL,
      dir: values.RALLY_MAIL_DIR ?? `${dataDir}/mail`,
      from: values.RALLY_MAIL_FROM ?? `Rally <no-reply@${new URL(publicUrl).hostname}>`,
    }),
    notificationEmailWindowMs: values.RALLY_NOTIFICATION_EMAIL_WINDOW,
    signatureConfirmationTtlMs: values.RALLY_SIGNATURE_CONFIRMATION_TTL,
    guestEmailsPerAddressPerDay: values.RALLY_GUEST_EMAILS_PER_ADDRESS_PER_DAY,
  } satisfies Partial<Config>;
}
