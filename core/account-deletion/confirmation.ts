// The email that tells a person their account is gone (issue 46). The address on file is read before
// anything is erased and carried to the workflow's last step sealed (AES-256-GCM, a key derived from
// RALLY_ENCRYPTION_KEY), so the workflow's history never holds it in the clear.
import { createHmac } from 'node:crypto';
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import type { MailMessage } from '../../platform/mailer.ts';
import { createSecretBox, type SecretBox } from '../webhooks/signing-secrets.ts';

/** The box of addresses awaiting a deletion's confirmation, under a key of its own. */
export function deletionAddressBox(encryptionKeyHex: string): SecretBox {
  return createSecretBox(createHmac('sha256', Buffer.from(encryptionKeyHex, 'hex')).update('rally account deletion addresses').digest('hex'));
}

/** The person's address, sealed (base64url); null when the user row is already gone. */
export async function sealedDeletionAddress(db: CommonQueryMethods, box: SecretBox, userId: string): Promise<string | null> {
  const email = await db.maybeOneFirst(sql.type(z.object({ email: z.string() }))`SELECT email FROM users WHERE id = ${userId}`);
  return email === null ? null : box.seal(email).toString('base64url');
}

/** The confirmation sent to the sealed address once nothing of the account is left. */
export function deletionConfirmation(box: SecretBox, sealedAddress: string): MailMessage {
  return {
    to: box.open(Buffer.from(sealedAddress, 'base64url')),
    subject: 'Your Rally account has been deleted',
    text: [
      'Your Rally account has been deleted, as you asked.',
      '',
      'Your profile, comments, webhooks, uploads and notifications are gone. Your signatures still count',
      'towards their petitions, without your name or anything else that identifies you; petitions you',
      'started stay, shown as by "a former member".',
      '',
      'This is the last email we send to this address. If you did not ask for this, reply to tell us.',
    ].join('\n'),
  };
}
